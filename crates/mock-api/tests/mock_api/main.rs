//! Integration tests of the mock server.
