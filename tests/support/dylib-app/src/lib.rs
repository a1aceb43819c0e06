//! Nothing: the program that links agboss as a shared library is `tests/linked.rs`.
