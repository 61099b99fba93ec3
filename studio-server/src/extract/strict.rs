//! A JSON body read into its request type the way `/openapi.json` describes it: a struct is read
//! from a JSON object only. serde's derived `Deserialize` also reads a struct from an array, its
//! fields in order, so `"output": [null, null]` passed as an output with every field left out
//! (Schemathesis found it: the develop went ahead and answered 402 for want of tokens). Here an
//! array where a struct is read is refused, at any depth, and becomes the route's 400.
//!
//! Enums are read as `serde_json::Value` reads them (a variant's content is not checked again).

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Unexpected, Visitor,
};
use serde_json::{Error, Value};

/// Read `value` into `T`, refusing an array wherever a struct is read.
pub(crate) fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Strict(value))
}

/// A JSON value that reads structs from objects only.
struct Strict(Value);

/// What a value is, for an "invalid type" error.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Seq(items.into_iter());
    let value = visitor.visit_seq(&mut seq)?;
    match seq.0.len() {
        0 => Ok(value),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
    }
}

fn visit_object<'de, V: Visitor<'de>>(map: serde_json::Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    visitor.visit_map(Map { entries: map.into_iter(), value: None })
}

impl<'de> Deserializer<'de> for Strict {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(map) => visit_object(map, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Strict(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// An array's elements, each read strictly.
struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|item| seed.deserialize(Strict(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's entries, each value read strictly.
struct Map {
    entries: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Map {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some(value);
        seed.deserialize(IntoDeserializer::<Error>::into_deserializer(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Strict(value)),
            None => Err(de::Error::custom("a value was read before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::from_value;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    struct Output {
        #[serde(default)]
        destination: Option<String>,
        #[serde(default)]
        width: Option<i64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Body {
        #[serde(default)]
        output: Option<Output>,
        #[serde(default)]
        outputs: Vec<Output>,
        #[serde(default)]
        keys: Option<Vec<String>>,
        #[serde(default)]
        extra: Option<serde_json::Value>,
    }

    #[test]
    fn structs_come_from_objects_only() {
        // serde_json alone reads the array as an output with its fields in order.
        let loose: Body = serde_json::from_value(json!({"output": [null, null]})).unwrap();
        assert_eq!(loose.output, Some(Output::default()));
        for body in [json!({"output": [null, null]}), json!({"outputs": [[]]}), json!([])] {
            let e = from_value::<Body>(body.clone()).unwrap_err();
            assert!(e.to_string().contains("invalid type: sequence"), "{body}: {e}");
        }
    }

    #[test]
    fn everything_else_reads_as_before() {
        let body = json!({
            "output": {"destination": "story", "width": 1080},
            "outputs": [{}, {"width": 5}],
            "keys": ["front", "back"],
            "extra": [1, {"a": [true]}],
            "unknown": [[]],
        });
        let strict: Body = from_value(body.clone()).unwrap();
        let loose: Body = serde_json::from_value(body).unwrap();
        assert_eq!(strict, loose);
        assert_eq!(strict.output.unwrap().width, Some(1080));
        assert!(from_value::<Body>(json!({"output": null, "keys": null})).unwrap().output.is_none());
        assert!(from_value::<Body>(json!({"keys": "front"})).is_err());
        assert!(from_value::<Body>(json!({"output": {"width": "wide"}})).is_err());
    }
}
