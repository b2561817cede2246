//! Unit tests of the float operations on hand-worked values.
