// @ts-check
/**
 * The Worker's fuzzers for tools outside workers/ (`edgemem-worker/harness/fuzz`; the bench's robustness run):
 * HTTP requests generated from the OpenAPI document, and WebSocket messages. They live beside their tests in
 * test-node/robustness/.
 */
export { adminCall, formatReport, runFuzz } from '../test-node/robustness/fuzz-run.mjs';
export { runWsFuzz } from '../test-node/robustness/ws-fuzz.mjs';
