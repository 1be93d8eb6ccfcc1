//! Evaluation of observations against a contract (pure logic).
