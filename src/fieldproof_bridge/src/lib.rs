//! Bridge bundles: the generator, the adapters (fault injectors) and the contract checker.
