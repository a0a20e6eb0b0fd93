//! The xqfarm protocol (`xqfarm.v1`): domain types shared by coordinator and worker, the
//! generated gRPC code, and the conversions between them.

pub mod domain;
