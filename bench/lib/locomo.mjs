// @ts-check
/**
 * Where the LoCoMo dataset is (the bench's corpus and recall questions): `EDGEMEM_LOCOMO`, else
 * shared/datasets/locomo beside the repository. Every bench script defaults its `--data` to this.
 */
import { fileURLToPath } from 'node:url';

export const LOCOMO_DIR =
  process.env.EDGEMEM_LOCOMO ?? fileURLToPath(new URL('../../../shared/datasets/locomo', import.meta.url));
