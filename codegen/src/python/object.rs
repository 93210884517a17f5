//! An object schema's properties, with `allOf` parts and `$ref`s resolved.

use serde_json::{Map, Value};

use crate::Error;

/// The properties of an object schema, in schema order, and which are
/// required.
#[derive(Debug, Clone, Default)]
pub(super) struct ObjectView {
    pub(super) props: Vec<(String, Value)>,
    pub(super) required: Vec<String>,
}

impl ObjectView {
    /// The view of `schema` (an object, a `$ref` to one, or an `allOf` of
    /// them: properties of every part, required where any part requires).
    pub(super) fn of(schema: &Value, defs: &Map<String, Value>) -> Result<Self, Error> {
        let mut view = Self::default();
        view.add(schema, defs, 0)?;
        Ok(view)
    }

    fn add(&mut self, schema: &Value, defs: &Map<String, Value>, depth: u8) -> Result<(), Error> {
        if depth > 8 {
            return Err(Error::Schema("`allOf`/`$ref` nested too deep".into()));
        }
        if let Some(target) = ref_name(schema) {
            let def = defs
                .get(target)
                .ok_or_else(|| Error::Schema(format!("`$ref` to missing `{target}`")))?;
            return self.add(def, defs, depth + 1);
        }
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.add(part, defs, depth + 1)?;
        }
        for (name, prop) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            match self.props.iter_mut().find(|(n, _)| n == name) {
                Some((_, old)) => *old = prop.clone(),
                None => self.props.push((name.clone(), prop.clone())),
            }
        }
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str() {
                if !self.required.iter().any(|r| r == name) {
                    self.required.push(name.to_string());
                }
            }
        }
        Ok(())
    }

    pub(super) fn is_required(&self, prop: &str) -> bool {
        self.required.iter().any(|r| r == prop)
    }

    /// The string constant of `prop`, if it has one.
    pub(super) fn const_of(&self, prop: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(n, _)| n == prop)
            .and_then(|(_, s)| s.get("const"))
            .and_then(Value::as_str)
    }
}

/// The def a `{"$ref": "#/$defs/X"}` points to.
pub(super) fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// A schema without its documentation, for comparing shapes (a property
/// named `description` has an object, not a string, and stays).
pub(super) fn strip_docs(v: &Value) -> Value {
    match v {
        Value::Object(obj) => Value::Object(
            obj.iter()
                .filter(|(k, v)| !(*k == "description" && v.is_string()))
                .map(|(k, v)| (k.clone(), strip_docs(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_docs).collect()),
        other => other.clone(),
    }
}
