//! The xqfarm gRPC protocol (`xqfarm.v1`). Filled in by the farm issue.
