//! Elicitation: form enum shapes, URL mode, and the kinds of result values.

use mcp_core::schema::*;
use serde_json::json;

use crate::fixture;

// ---------------------------------------------------------------------------
// Elicitation

#[test]
fn elicitation_form_enum_shapes_decode_to_the_right_variants() {
    let message = &fixture("elicitation_create_form_all_enum_shapes")
        .case
        .message;
    let request: ElicitRequest = serde_json::from_value(message.clone()).unwrap();
    let ElicitRequestParams::Form(form) = &request.params else {
        panic!("expected form mode, got {:?}", request.params);
    };
    assert!(form.mode.is_some(), "explicit `mode: form` must be kept");
    let schema = &form.requested_schema;
    assert_eq!(
        schema.schema.as_deref(),
        Some("https://json-schema.org/draft/2020-12/schema")
    );
    let props = &schema.properties;
    let variant = |name: &str| -> &'static str {
        match props
            .get(name)
            .unwrap_or_else(|| panic!("no property {name}"))
        {
            PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(_) => "TitledSingleSelect",
            PrimitiveSchemaDefinition::LegacyTitledEnumSchema(_) => "LegacyTitled",
            PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(_) => "UntitledSingleSelect",
            PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(_) => "TitledMultiSelect",
            PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(_) => "UntitledMultiSelect",
            PrimitiveSchemaDefinition::StringSchema(_) => "String",
            PrimitiveSchemaDefinition::NumberSchema(_) => "Number",
            PrimitiveSchemaDefinition::BooleanSchema(_) => "Boolean",
        }
    };
    let expected = [
        ("name", "String"),
        ("email", "String"),
        ("age", "Number"),
        ("score", "Number"),
        ("newsletter", "Boolean"),
        ("color", "UntitledSingleSelect"),
        ("size", "TitledSingleSelect"),
        ("plan", "LegacyTitled"),
        ("toppings", "UntitledMultiSelect"),
        ("languages", "TitledMultiSelect"),
    ];
    assert_eq!(props.len(), expected.len());
    for (name, want) in expected {
        assert_eq!(variant(name), want, "property `{name}`");
    }

    // SEP-1034 defaults, with the right types and values.
    let PrimitiveSchemaDefinition::StringSchema(name) = &props["name"] else {
        unreachable!()
    };
    assert_eq!(name.default.as_deref(), Some("Ada Lovelace"));
    assert_eq!((name.min_length, name.max_length), (Some(1), Some(100)));
    let PrimitiveSchemaDefinition::StringSchema(email) = &props["email"] else {
        unreachable!()
    };
    assert_eq!(email.format, Some(StringSchemaFormat::Email));
    let PrimitiveSchemaDefinition::NumberSchema(age) = &props["age"] else {
        unreachable!()
    };
    assert_eq!(age.type_, NumberSchemaType::Integer);
    let age_default = age.default.as_ref().unwrap();
    assert!(
        age_default.is_u64(),
        "30 must stay an integer: {age_default}"
    );
    assert_eq!(age_default.as_u64(), Some(30));
    let PrimitiveSchemaDefinition::NumberSchema(score) = &props["score"] else {
        unreachable!()
    };
    assert_eq!(score.type_, NumberSchemaType::Number);
    assert_eq!(score.default.as_ref().and_then(|n| n.as_f64()), Some(95.5));
    let PrimitiveSchemaDefinition::BooleanSchema(newsletter) = &props["newsletter"] else {
        unreachable!()
    };
    assert_eq!(newsletter.default, Some(true));
    let PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(color) = &props["color"] else {
        unreachable!()
    };
    assert_eq!(color.enum_, ["red", "green", "blue"]);
    assert_eq!(color.default.as_deref(), Some("green"));
    let PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(size) = &props["size"] else {
        unreachable!()
    };
    let sizes: Vec<_> = size
        .one_of
        .iter()
        .map(|o| (o.const_.as_str(), o.title.as_str()))
        .collect();
    assert_eq!(sizes, [("s", "Small"), ("m", "Medium"), ("l", "Large")]);
    assert_eq!(size.default.as_deref(), Some("m"));
    let PrimitiveSchemaDefinition::LegacyTitledEnumSchema(plan) = &props["plan"] else {
        unreachable!()
    };
    assert_eq!(plan.enum_names, ["Free tier", "Professional"]);
    assert_eq!(plan.default.as_deref(), Some("pro"));
    let PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(toppings) = &props["toppings"]
    else {
        unreachable!()
    };
    assert_eq!(toppings.items.enum_, ["cheese", "ham", "olives"]);
    assert_eq!((toppings.min_items, toppings.max_items), (Some(1), Some(3)));
    assert_eq!(
        toppings.default.as_deref(),
        Some(&["cheese".to_owned()][..])
    );
    let PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(languages) = &props["languages"]
    else {
        unreachable!()
    };
    let ts = &languages.items.any_of[2];
    assert_eq!(
        (ts.const_.as_str(), ts.title.as_str()),
        ("ts", "TypeScript")
    );
    assert_eq!(
        languages.default.as_deref(),
        Some(&["rust".to_owned(), "ts".to_owned()][..])
    );

    // Without `mode`, a request is still form mode, and stays without it.
    let bare = &fixture("elicitation_create_form_without_mode").case.message;
    let request: ServerRequest = serde_json::from_value(bare.clone()).unwrap();
    let ServerRequest::Elicit(ElicitRequest {
        params: ElicitRequestParams::Form(form),
        ..
    }) = &request
    else {
        panic!("expected a form elicitation, got {request:?}");
    };
    assert!(form.mode.is_none());
    assert!(
        serde_json::to_value(&request).unwrap()["params"]
            .get("mode")
            .is_none()
    );
}

#[test]
fn elicitation_url_mode_decodes_as_url() {
    let message = &fixture("elicitation_create_url_mode").case.message;
    let request: ServerRequest = serde_json::from_value(message.clone()).unwrap();
    let ServerRequest::Elicit(ElicitRequest {
        params: ElicitRequestParams::Url(url),
        ..
    }) = &request
    else {
        panic!("expected a URL elicitation, got {request:?}");
    };
    assert_eq!(
        url.elicitation_id.as_deref(),
        Some("550e8400-e29b-41d4-a716-446655440000")
    );
    assert_eq!(url.url, "https://mcp.example.com/ui/set_api_key");
    assert_eq!(request.method(), ServerRequestMethod::Elicit);

    // The same parameters inside a URLElicitationRequiredError.
    let error: UrlElicitationRequiredError = serde_json::from_value(
        fixture("url_elicitation_required_error")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(*error.error.code, -32042);
    assert_eq!(
        error.error.data.elicitations[0].elicitation_id,
        url.elicitation_id
    );
    assert_eq!(
        error.error.data.extra.get("com.example/hint"),
        Some(&json!("retry after authorizing"))
    );
}

#[test]
fn elicit_result_values_keep_their_kind() {
    let message = &fixture("elicit_result_accept_all_value_kinds").case.message;
    let result =
        ClientResult::from_value(ServerRequestMethod::Elicit, message["result"].clone()).unwrap();
    let ClientResult::Elicit(result) = result else {
        panic!("expected ClientResult::Elicit, got {result:?}");
    };
    assert_eq!(result.action, ElicitResultAction::Accept);
    let content = result.content.as_ref().unwrap();
    assert!(matches!(&content["name"], ElicitResultContentValue::String(s) if s == "Ada Lovelace"));
    let ElicitResultContentValue::JsonNumber(score) = &content["score"] else {
        panic!("score: {:?}", content["score"]);
    };
    assert_eq!(score.as_f64(), Some(95.5));
    let ElicitResultContentValue::JsonNumber(age) = &content["age"] else {
        panic!("age: {:?}", content["age"]);
    };
    assert!(age.is_u64() && age.as_u64() == Some(30), "{age}");
    assert!(matches!(
        content["newsletter"],
        ElicitResultContentValue::Boolean(true)
    ));
    assert!(
        matches!(&content["languages"], ElicitResultContentValue::Array(a) if a == &["rust", "ts"])
    );
    let text = serde_json::to_string(&result).unwrap();
    assert!(text.contains(r#""score":95.5,"age":30,"#), "{text}");
}
