//! Serde for fixed-size arrays of any length (`float64[36]` and friends): serde's own impls stop
//! at 32 elements. Encoded as a tuple, i.e. in CDR without a length prefix.

use std::{fmt, marker::PhantomData};

use serde::{
    de::{Error, SeqAccess, Visitor},
    ser::SerializeTuple,
    Deserialize, Deserializer, Serialize, Serializer,
};

/// Serializes `[T; N]` as an N-tuple.
pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
    value: &[T; N],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut tuple = serializer.serialize_tuple(N)?;
    for element in value {
        tuple.serialize_element(element)?;
    }
    tuple.end()
}

/// Deserializes an N-tuple into `[T; N]`.
pub fn deserialize<
    'de,
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default + Copy,
    const N: usize,
>(
    deserializer: D,
) -> Result<[T; N], D::Error> {
    struct ArrayVisitor<T, const N: usize>(PhantomData<T>);

    impl<'de, T: Deserialize<'de> + Default + Copy, const N: usize> Visitor<'de>
        for ArrayVisitor<T, N>
    {
        type Value = [T; N];

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "an array of {N} elements")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
            let mut out = [T::default(); N];
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(i, &self))?;
            }
            Ok(out)
        }
    }

    deserializer.deserialize_tuple(N, ArrayVisitor::<T, N>(PhantomData))
}
