//! `schcp-status`, the hosted status service (docs/hosted-status.md):
//! the key app's status API for many principals at once, namespaced by the
//! principal key's thumbprint, on PostgreSQL, so hosts reach a person's status
//! URLs while their laptop sleeps. Any number of stateless processes may serve
//! one database: every change is one transaction whose result does not depend
//! on which process ran it ([`store`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod admin;
pub mod batch;
pub mod config;
pub mod metrics;
pub mod service;
pub mod store;
