// @ts-check
/**
 * The Worker's fuzzers for tools outside workers/ (`edgemem-worker/harness/fuzz`; the bench's robustness run):
 * HTTP requests generated from the OpenAPI document, WebSocket messages, and replicas killed mid-sync. They live
 * beside their tests in test-node/robustness/.
 */
export { adminCall, formatReport, runFuzz } from '../test-node/robustness/fuzz-run.mjs';
export { runReplicaFuzz } from '../test-node/robustness/replica-fuzz.mjs';
export { runWsFuzz } from '../test-node/robustness/ws-fuzz.mjs';
