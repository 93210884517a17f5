//! What each folder of `schema/2026-07-28/examples/` holds, and the ways its
//! examples must read: the exact 2026-07-28 type of the folder's name, the
//! neutral type of that name, and the union or result enum a message
//! belongs to.

use mcp_core::schema as n;
use mcp_core::schema::v2026_07_28 as v26;

use crate::codec::{Check, by_method, each_value, member, through};

/// One example folder.
pub(crate) struct Folder {
    /// The folder, which is the schema's `$defs` name.
    pub(crate) name: &'static str,
    pub(crate) checks: Vec<Check>,
}

/// The exact and the neutral type of one name.
macro_rules! types {
    ($ty:ident) => {
        vec![
            Check::new(
                concat!("v2026_07_28::", stringify!($ty)),
                false,
                "",
                through::<v26::$ty>,
            ),
            Check::new(
                concat!("neutral::", stringify!($ty)),
                true,
                "",
                through::<n::$ty>,
            ),
        ]
    };
}

/// `$ty` as a member of the tagged union `$union`, exact and neutral.
macro_rules! member_of {
    ($ty:ident in $union:ident) => {
        member_of!($ty in $union, $union)
    };
    ($ty:ident in $exact:ident, $neutral:ident) => {
        vec![
            Check::new(
                concat!("v2026_07_28::", stringify!($exact)),
                false,
                "",
                member::<v26::$ty, v26::$exact>,
            ),
            Check::new(
                concat!("neutral::", stringify!($neutral)),
                true,
                "",
                member::<n::$ty, n::$neutral>,
            ),
        ]
    };
}

/// The result of `$method` through the method-keyed result enums, at `$at`.
macro_rules! result_of {
    ($method:literal at $at:literal) => {
        vec![
            Check::new(
                concat!("v2026_07_28::ServerResult for ", $method),
                false,
                $at,
                by_method::<v26::ServerResult>($method),
            ),
            Check::new(
                concat!("neutral::ServerResult for ", $method),
                true,
                $at,
                by_method::<n::ServerResult>($method),
            ),
        ]
    };
    (client $method:literal) => {
        vec![Check::new(
            concat!("neutral::ClientResult for ", $method),
            true,
            "",
            by_method::<n::ClientResult>($method),
        )]
    };
}

/// A whole JSON-RPC error response: also the generic envelopes.
fn error_response() -> Vec<Check> {
    let mut checks =
        types_generic::<v26::JsonrpcErrorResponse, n::JsonrpcErrorResponse>("JsonrpcErrorResponse");
    checks.extend(types_generic::<v26::JsonrpcMessage, n::JsonrpcMessage>(
        "JsonrpcMessage",
    ));
    checks
}

/// A general type the value is one case of, exact and neutral.
fn types_generic<E, N>(name: &str) -> Vec<Check>
where
    E: 'static + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    N: 'static + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    vec![
        Check::new(format!("v2026_07_28::{name}"), false, "", through::<E>).general(),
        Check::new(format!("neutral::{name}"), true, "", through::<N>).general(),
    ]
}

macro_rules! folders {
    ($($name:literal => $ty:ident $(, $extra:expr)*;)*) => {
        vec![$(
            Folder {
                name: $name,
                checks: {
                    #[allow(unused_mut)]
                    let mut checks = types!($ty);
                    $(checks.extend($extra);)*
                    checks
                },
            },
        )*]
    };
}

/// Every example folder the test knows; a folder missing here fails the test.
pub(crate) fn folders() -> Vec<Folder> {
    folders! {
        "AudioContent" => AudioContent, member_of!(AudioContent in ContentBlock);
        "BlobResourceContents" => BlobResourceContents;
        "BooleanSchema" => BooleanSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "CallToolRequest" => CallToolRequest, member_of!(CallToolRequest in ClientRequest);
        "CallToolRequestParams" => CallToolRequestParams;
        "CallToolResult" => CallToolResult, result_of!("tools/call" at "");
        "CallToolResultResponse" => CallToolResultResponse, result_of!("tools/call" at "/result");
        "CancelledNotification" => CancelledNotification
           , member_of!(CancelledNotification in ClientNotification)
           , member_of!(CancelledNotification in ServerNotification);
        "CancelledNotificationParams" => CancelledNotificationParams;
        "ClientCapabilities" => ClientCapabilities;
        "CompleteRequest" => CompleteRequest, member_of!(CompleteRequest in ClientRequest);
        "CompleteRequestParams" => CompleteRequestParams;
        "CompleteResult" => CompleteResult, result_of!("completion/complete" at "");
        "CompleteResultResponse" => CompleteResultResponse
           , result_of!("completion/complete" at "/result");
        "CreateMessageRequest" => CreateMessageRequest
           , member_of!(CreateMessageRequest in InputRequest)
           , member_of!(CreateMessageRequest in InputRequest, ServerRequest);
        "CreateMessageRequestParams" => CreateMessageRequestParams;
        "CreateMessageResult" => CreateMessageResult
           , types_generic::<v26::InputResponse, n::InputResponse>("InputResponse")
           , result_of!(client "sampling/createMessage");
        "DiscoverRequest" => DiscoverRequest, member_of!(DiscoverRequest in ClientRequest);
        "DiscoverResult" => DiscoverResult, result_of!("server/discover" at "");
        "DiscoverResultResponse" => DiscoverResultResponse
           , result_of!("server/discover" at "/result");
        "ElicitRequest" => ElicitRequest
           , member_of!(ElicitRequest in InputRequest)
           , member_of!(ElicitRequest in InputRequest, ServerRequest);
        "ElicitRequestFormParams" => ElicitRequestFormParams
           , member_of!(ElicitRequestFormParams in ElicitRequestParams);
        "ElicitRequestURLParams" => ElicitRequestUrlParams
           , member_of!(ElicitRequestUrlParams in ElicitRequestParams);
        "ElicitResult" => ElicitResult
           , types_generic::<v26::InputResponse, n::InputResponse>("InputResponse")
           , result_of!(client "elicitation/create");
        "EmbeddedResource" => EmbeddedResource, member_of!(EmbeddedResource in ContentBlock);
        "GetPromptRequest" => GetPromptRequest, member_of!(GetPromptRequest in ClientRequest);
        "GetPromptRequestParams" => GetPromptRequestParams;
        "GetPromptResult" => GetPromptResult, result_of!("prompts/get" at "");
        "GetPromptResultResponse" => GetPromptResultResponse
           , result_of!("prompts/get" at "/result");
        "HeaderMismatchError" => HeaderMismatchError, error_response();
        "ImageContent" => ImageContent, member_of!(ImageContent in ContentBlock);
        "InputRequests" => InputRequests
           , [
                Check::new("each value as v2026_07_28::InputRequest", false, "", each_value::<v26::InputRequest>),
                Check::new("each value as neutral::InputRequest", true, "", each_value::<n::InputRequest>),
            ];
        "InputRequiredResult" => InputRequiredResult;
        "InputResponses" => InputResponses
           , [
                Check::new("each value as v2026_07_28::InputResponse", false, "", each_value::<v26::InputResponse>),
                Check::new("each value as neutral::InputResponse", true, "", each_value::<n::InputResponse>),
            ];
        "InternalError" => InternalError, types_generic::<v26::ErrorObject, n::ErrorObject>("ErrorObject");
        "InvalidParamsError" => InvalidParamsError, types_generic::<v26::ErrorObject, n::ErrorObject>("ErrorObject");
        "ListPromptsRequest" => ListPromptsRequest, member_of!(ListPromptsRequest in ClientRequest);
        "ListPromptsResult" => ListPromptsResult, result_of!("prompts/list" at "");
        "ListPromptsResultResponse" => ListPromptsResultResponse
           , result_of!("prompts/list" at "/result");
        "ListResourceTemplatesRequest" => ListResourceTemplatesRequest
           , member_of!(ListResourceTemplatesRequest in ClientRequest);
        "ListResourceTemplatesResult" => ListResourceTemplatesResult
           , result_of!("resources/templates/list" at "");
        "ListResourceTemplatesResultResponse" => ListResourceTemplatesResultResponse
           , result_of!("resources/templates/list" at "/result");
        "ListResourcesRequest" => ListResourcesRequest
           , member_of!(ListResourcesRequest in ClientRequest);
        "ListResourcesResult" => ListResourcesResult, result_of!("resources/list" at "");
        "ListResourcesResultResponse" => ListResourcesResultResponse
           , result_of!("resources/list" at "/result");
        "ListRootsRequest" => ListRootsRequest
           , member_of!(ListRootsRequest in InputRequest)
           , member_of!(ListRootsRequest in InputRequest, ServerRequest);
        "ListRootsResult" => ListRootsResult
           , types_generic::<v26::InputResponse, n::InputResponse>("InputResponse")
           , result_of!(client "roots/list");
        "ListToolsRequest" => ListToolsRequest, member_of!(ListToolsRequest in ClientRequest);
        "ListToolsResult" => ListToolsResult, result_of!("tools/list" at "");
        "ListToolsResultResponse" => ListToolsResultResponse
           , result_of!("tools/list" at "/result");
        "LoggingMessageNotification" => LoggingMessageNotification
           , member_of!(LoggingMessageNotification in ServerNotification);
        "LoggingMessageNotificationParams" => LoggingMessageNotificationParams;
        "MethodNotFoundError" => MethodNotFoundError, types_generic::<v26::ErrorObject, n::ErrorObject>("ErrorObject");
        "MissingRequiredClientCapabilityError" => MissingRequiredClientCapabilityError
           , error_response();
        "ModelPreferences" => ModelPreferences;
        "NumberSchema" => NumberSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "PaginatedRequestParams" => PaginatedRequestParams;
        "ParseError" => ParseError, types_generic::<v26::ErrorObject, n::ErrorObject>("ErrorObject");
        "ProgressNotification" => ProgressNotification
           , member_of!(ProgressNotification in ServerNotification);
        "ProgressNotificationParams" => ProgressNotificationParams;
        "PromptListChangedNotification" => PromptListChangedNotification
           , member_of!(PromptListChangedNotification in ServerNotification);
        "ReadResourceRequest" => ReadResourceRequest
           , member_of!(ReadResourceRequest in ClientRequest);
        "ReadResourceResult" => ReadResourceResult, result_of!("resources/read" at "");
        "ReadResourceResultResponse" => ReadResourceResultResponse
           , result_of!("resources/read" at "/result");
        "Resource" => Resource;
        "ResourceLink" => ResourceLink, member_of!(ResourceLink in ContentBlock);
        "ResourceListChangedNotification" => ResourceListChangedNotification
           , member_of!(ResourceListChangedNotification in ServerNotification);
        "ResourceUpdatedNotification" => ResourceUpdatedNotification
           , member_of!(ResourceUpdatedNotification in ServerNotification);
        "ResourceUpdatedNotificationParams" => ResourceUpdatedNotificationParams;
        "Root" => Root;
        "SamplingMessage" => SamplingMessage;
        "ServerCapabilities" => ServerCapabilities;
        "StringSchema" => StringSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "SubscriptionsAcknowledgedNotification" => SubscriptionsAcknowledgedNotification
           , member_of!(SubscriptionsAcknowledgedNotification in ServerNotification);
        "SubscriptionsListenRequest" => SubscriptionsListenRequest
           , member_of!(SubscriptionsListenRequest in ClientRequest);
        "SubscriptionsListenResult" => SubscriptionsListenResult
           , result_of!("subscriptions/listen" at "");
        "SubscriptionsListenResultResponse" => SubscriptionsListenResultResponse
           , result_of!("subscriptions/listen" at "/result");
        "TextContent" => TextContent, member_of!(TextContent in ContentBlock);
        "TextResourceContents" => TextResourceContents;
        "TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "Tool" => Tool;
        "ToolListChangedNotification" => ToolListChangedNotification
           , member_of!(ToolListChangedNotification in ServerNotification);
        "ToolResultContent" => ToolResultContent
           , member_of!(ToolResultContent in SamplingMessageContentBlock);
        "ToolUseContent" => ToolUseContent, member_of!(ToolUseContent in SamplingMessageContentBlock);
        "UnsupportedProtocolVersionError" => UnsupportedProtocolVersionError, error_response();
        "UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
        "UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema
           , types_generic::<v26::PrimitiveSchemaDefinition, n::PrimitiveSchemaDefinition>("PrimitiveSchemaDefinition");
    }
}
