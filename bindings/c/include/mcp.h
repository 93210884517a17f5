/**
 * @file mcp.h
 * @brief libmcp: a Model Context Protocol client and server for C.
 *
 * Link with `-lmcp` (shared) or with `libmcp.a -lpthread -ldl -lm` (static).
 *
 * @par Conventions
 * - Every function that can fail returns an `mcp_result`: `MCP_OK` (0) or an
 *   `MCP_ERR_*` code. `mcp_last_error_message()` then describes the failure
 *   (per thread); for `MCP_ERR_RPC`, `mcp_last_error_rpc_code()` and
 *   `mcp_last_error_rpc_data()` give the peer's JSON-RPC error.
 * - No partial successes: an out-parameter is set to NULL (or left alone, for
 *   optional scalars) when the call fails. Pointer out-parameters are set to
 *   NULL on entry.
 * - A NULL argument that must not be NULL gives `MCP_ERR_NULL_ARGUMENT`, never
 *   a crash. Every function catches panics inside the library
 *   (`MCP_ERR_PANIC`); nothing unwinds into C.
 * - Data crosses as UTF-8 JSON text in the shapes of the MCP schema (params,
 *   results, schemas).
 * - The ABI can grow without breaking programs: options are builder objects
 *   (`mcp_http_options`) or structs that carry their size
 *   (`mcp_call_options.struct_size`, set by `MCP_CALL_OPTIONS_INIT`).
 *   `MCP_VERSION_MAJOR/MINOR/PATCH` name the header's version; the shared
 *   library's SONAME is `libmcp.so.MAJOR`.
 *
 * @par Ownership (the whole of it)
 * - Handles are opaque and yours from `mcp_<object>_new` until
 *   `mcp_<object>_free` (freeing NULL does nothing): `mcp_client`,
 *   `mcp_server`, `mcp_group`, `mcp_http_options`, `mcp_cancel_token`. `mcp_context` is
 *   the library's: valid during the callback it was given to, never freed.
 * - Strings returned through a `char **` out-parameter are yours: free each
 *   with `mcp_string_free` (which is `free`).
 * - Strings returned as `const char *` are the library's, never freed:
 *   `mcp_version()` and `mcp_result_name()` are static;
 *   `mcp_last_error_message()` and `mcp_last_error_rpc_data()` stay valid
 *   until the next failure on the same thread; `mcp_context_traceparent()`
 *   and `mcp_context_tracestate()` until the callback returns.
 * - Strings and arrays you pass are copied before the call returns (options
 *   objects too: `mcp_server_start_http` keeps a copy).
 * - Strings a callback receives are the library's, valid until it returns.
 *   A string a callback hands back through `char **result_json` becomes the
 *   library's: make it with `mcp_string_new` (or `malloc`/`strdup`).
 * - `userdata` stays yours: the library passes it back untouched and never
 *   frees it. It must stay valid until the handle is freed; release it in a
 *   cleanup registered with `mcp_server_on_free` / `mcp_client_on_free`,
 *   which runs once no callback of the handle can run.
 * - Never free a handle while another thread is in a call on it. The one
 *   exception: a handle may be freed from inside one of its own callbacks
 *   (a server's whatever it serves: stdio, HTTP or both). That callback
 *   finishes normally (a server callback's answer still reaches the
 *   client); the rest of the shutdown, and the cleanups, happen on a
 *   library thread once it has returned. For a server that means its
 *   sessions end, and `mcp_server_serve_stdio` or `mcp_server_wait` blocked
 *   on another thread then returns `MCP_OK`; the server must not be used or
 *   freed again.

 * @par Runtimes and threads
 * - Each `mcp_client` and each `mcp_server` owns its own multi-thread Tokio
 *   runtime: two engine threads, which run the protocol and never run your
 *   code, and a pool of blocking threads, which run your callbacks. There is
 *   no global runtime. `mcp_<object>_free` shuts the runtime down and joins
 *   its threads.
 * - Calls block the calling thread until they finish (or time out). A
 *   connected client may be used from many threads at once; requests from
 *   different threads are in flight together. A server may be changed (tools
 *   added or removed, notifications sent) from any thread while it serves.
 * - Server callbacks (tools, resources, templates, prompts) and client
 *   callbacks for server requests (sampling, elicitation) run on the
 *   handle's blocking pool, several at once when requests overlap, so a slow
 *   callback never stalls the engine (`ping` and other requests are still
 *   answered). Client notifications and stderr lines are delivered one at a
 *   time, in order, on the blocking pool. Progress callbacks
 *   (`mcp_call_options.on_progress`) run on the thread that made the call.
 * - Callbacks may call back into the library without deadlock: a client
 *   callback may call `mcp_client_*` on the same client (e.g. list tools from
 *   the `tools/list_changed` notification), and a server callback may use
 *   its `mcp_context` and `mcp_server_*` functions (e.g. add a tool), and
 *   even free its own handle (see Ownership).
 * - `userdata` comes back as the first argument of every callback, possibly
 *   on several threads at once. After `mcp_<object>_free` returns (called
 *   from outside the handle's callbacks), no callback of that handle runs.
 * - A call can be cancelled from another thread with an `mcp_cancel_token`
 *   (`mcp_call_options.cancel`); the server is told.
 *
 * @par Limits
 * - One message (a request, a response, a notification) may be at most
 *   4 MiB (4194304 bytes) of JSON text, on every transport. Over stdio, a
 *   request over the peer's limit is refused at once with JSON-RPC error
 *   -32600 ("the message exceeds the limit of 4194304 bytes"): the call
 *   fails with `MCP_ERR_RPC`. An answer over the limit is dropped and its
 *   call fails at once with `MCP_ERR_TRANSPORT` ("larger than the message
 *   limit"). Over Streamable HTTP a request body over the limit is answered
 *   413 (`MCP_ERR_TRANSPORT`). Either way the session goes on. Send large
 *   data as resource links or in pieces.
 */


#ifndef MCP_H
#define MCP_H

/* Generated by cbindgen from the mcp-ffi crate; do not edit. Regenerate with bindings/c/gen-header.sh. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The version of libmcp this header belongs to (mcp_version() gives the
 * library's at run time). */
#define MCP_VERSION_MAJOR 0
#define MCP_VERSION_MINOR 1
#define MCP_VERSION_PATCH 0
#define MCP_VERSION_STRING "0.1.0"

/** Initializes an mcp_call_options with its size set and every option at its
 * default: mcp_call_options options = MCP_CALL_OPTIONS_INIT; */
#define MCP_CALL_OPTIONS_INIT {sizeof(mcp_call_options), 0, NULL, NULL, NULL, NULL, NULL}

/* The MCP_METHOD_* names are generated by codegen from the method table of
 * the MCP schemas (`cargo run -p codegen`); do not edit. */

/**
 * @name MCP method names
 * The wire name of every MCP method of every protocol revision libmcp
 * knows (2024-11-05 to 2026-07-28), as a string literal: compare it with the
 * `method` a notification callback receives, or pass it to
 * `mcp_client_request` and `mcp_client_notify`. Each one says in which
 * revisions it exists; a session can use only the methods of the revision
 * it negotiated.
 * @{
 */
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_COMPLETION_COMPLETE "completion/complete"
/** Request, server to client; since 2025-06-18. */
#define MCP_METHOD_ELICITATION_CREATE "elicitation/create"
/** Request, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_INITIALIZE "initialize"
/** Request, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_LOGGING_SET_LEVEL "logging/setLevel"
/** Notification, either direction; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_CANCELLED "notifications/cancelled"
/** Notification, server to client; 2025-11-25. */
#define MCP_METHOD_NOTIFICATIONS_ELICITATION_COMPLETE "notifications/elicitation/complete"
/** Notification, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_NOTIFICATIONS_INITIALIZED "notifications/initialized"
/** Notification, server to client; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_MESSAGE "notifications/message"
/** Notification, either direction; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_PROGRESS "notifications/progress"
/** Notification, server to client; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_PROMPTS_LIST_CHANGED "notifications/prompts/list_changed"
/** Notification, server to client; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_RESOURCES_LIST_CHANGED "notifications/resources/list_changed"
/** Notification, server to client; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_RESOURCES_UPDATED "notifications/resources/updated"
/** Notification, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_NOTIFICATIONS_ROOTS_LIST_CHANGED "notifications/roots/list_changed"
/** Notification, server to client; since 2026-07-28. */
#define MCP_METHOD_NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED "notifications/subscriptions/acknowledged"
/** Notification, either direction; 2025-11-25. */
#define MCP_METHOD_NOTIFICATIONS_TASKS_STATUS "notifications/tasks/status"
/** Notification, server to client; since 2024-11-05. */
#define MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED "notifications/tools/list_changed"
/** Request, either direction; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_PING "ping"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_PROMPTS_GET "prompts/get"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_PROMPTS_LIST "prompts/list"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_RESOURCES_LIST "resources/list"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_RESOURCES_READ "resources/read"
/** Request, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_RESOURCES_SUBSCRIBE "resources/subscribe"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_RESOURCES_TEMPLATES_LIST "resources/templates/list"
/** Request, client to server; 2024-11-05 to 2025-11-25. */
#define MCP_METHOD_RESOURCES_UNSUBSCRIBE "resources/unsubscribe"
/** Request, server to client; since 2024-11-05. */
#define MCP_METHOD_ROOTS_LIST "roots/list"
/** Request, server to client; since 2024-11-05. */
#define MCP_METHOD_SAMPLING_CREATE_MESSAGE "sampling/createMessage"
/** Request, client to server; since 2026-07-28. */
#define MCP_METHOD_SERVER_DISCOVER "server/discover"
/** Request, client to server; since 2026-07-28. */
#define MCP_METHOD_SUBSCRIPTIONS_LISTEN "subscriptions/listen"
/** Request, either direction; 2025-11-25. */
#define MCP_METHOD_TASKS_CANCEL "tasks/cancel"
/** Request, either direction; 2025-11-25. */
#define MCP_METHOD_TASKS_GET "tasks/get"
/** Request, either direction; 2025-11-25. */
#define MCP_METHOD_TASKS_LIST "tasks/list"
/** Request, either direction; 2025-11-25. */
#define MCP_METHOD_TASKS_RESULT "tasks/result"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_TOOLS_CALL "tools/call"
/** Request, client to server; since 2024-11-05. */
#define MCP_METHOD_TOOLS_LIST "tools/list"
/** @} */

/**
 * `mcp_server_declare`: declare the `tools` capability.
 */
#define MCP_CAPABILITY_TOOLS 1

/**
 * `mcp_server_declare`: declare the `resources` capability.
 */
#define MCP_CAPABILITY_RESOURCES 2

/**
 * `mcp_server_declare`: declare the `prompts` capability.
 */
#define MCP_CAPABILITY_PROMPTS 4

/**
 * What every fallible function returns: `MCP_OK` (0) or one of the
 * `MCP_ERR_*` codes. The values are stable; new codes may be added, so
 * treat an unknown value as a failure. `mcp_last_error_message()` describes
 * the failure; `mcp_result_name()` names a code. Callbacks return one of
 * these too.
 */
enum mcp_result
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Success.
   */
  MCP_OK = 0,
  /**
   * A pointer argument that must not be NULL was NULL.
   */
  MCP_ERR_NULL_ARGUMENT = 1,
  /**
   * An argument is not valid: not UTF-8, an unknown name, a bad address, a
   * tool name or URI template that does not parse, and so on.
   */
  MCP_ERR_INVALID_ARGUMENT = 2,
  /**
   * A JSON text argument does not parse, or does not have the expected
   * shape.
   */
  MCP_ERR_INVALID_JSON = 3,
  /**
   * The handle is not in a state that allows the call (e.g. a request
   * before `mcp_client_connect_*`, or configuring a client that is
   * connected).
   */
  MCP_ERR_INVALID_STATE = 4,
  /**
   * The peer answered with a JSON-RPC error; see
   * `mcp_last_error_rpc_code()` and `mcp_last_error_rpc_data()`.
   */
  MCP_ERR_RPC = 5,
  /**
   * No answer came in time; the request was cancelled.
   */
  MCP_ERR_TIMEOUT = 6,
  /**
   * The request was cancelled.
   */
  MCP_ERR_CANCELLED = 7,
  /**
   * The connection is closed: the peer went away (e.g. the server process
   * died), the session was closed, or the handle is shutting down.
   */
  MCP_ERR_CLOSED = 8,
  /**
   * A transport failed: a process could not be started, a connection
   * could not be made, an address could not be bound, a message was over
   * the size limit.
   */
  MCP_ERR_TRANSPORT = 9,
  /**
   * The peer did not declare the capability this call needs (e.g. calling
   * a tool on a server without tools).
   */
  MCP_ERR_CAPABILITY = 10,
  /**
   * The peer broke the protocol: a result that does not decode, an
   * unsupported protocol version, structured content that does not match
   * the tool's output schema.
   */
  MCP_ERR_PROTOCOL = 11,
  /**
   * A callback reported failure. Callbacks return this (or any code other
   * than `MCP_OK`) to fail the request they answer.
   */
  MCP_ERR_CALLBACK = 12,
  /**
   * The library panicked. This is a bug in libmcp; the call had no effect
   * beyond what it did before the panic, and the process can go on.
   */
  MCP_ERR_PANIC = 13,
  /**
   * Any other failure inside the library (e.g. the runtime could not
   * start).
   */
  MCP_ERR_INTERNAL = 14,
  /**
   * Authorization failed: OAuth discovery, registration, the user's
   * consent or the token endpoint, or the server refused every token.
   * (Added in this version; auth failures were `MCP_ERR_INTERNAL` before.)
   */
  MCP_ERR_AUTH = 15,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum mcp_result mcp_result;
#else
typedef uint32_t mcp_result;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * Cancels the calls it is given to (`mcp_call_options.cancel`) from any
 * thread: `mcp_cancel_token_cancel` makes each call that uses it fail at
 * once with `MCP_ERR_CANCELLED` and tells the server
 * (`notifications/cancelled`). A cancelled token stays cancelled: a call
 * given it later fails at once. Made by `mcp_cancel_token_new`, freed with
 * `mcp_cancel_token_free` once no call uses it.
 */
typedef struct mcp_cancel_token mcp_cancel_token;

/**
 * A connection to one MCP server. It owns a multi-thread runtime (two engine
 * threads plus a pool of threads for callbacks), made by `mcp_client_new`
 * and shut down by `mcp_client_free`. Once connected, any number of threads
 * may make calls on it at once.
 */
typedef struct mcp_client mcp_client;

/**
 * The request a server callback is handling: pass it to `mcp_context_*` to
 * report progress, send log messages, or ask the client for sampling,
 * elicitation or its roots.
 *
 * Valid only during the callback it was given to (on that callback's thread
 * or any other thread, as long as the callback has not returned). It must
 * not be freed.
 */
typedef struct mcp_context mcp_context;

/**
 * A connected group of servers (`mcp_group` in C).
 */
typedef struct mcp_group mcp_group;

/**
 * Options for serving Streamable HTTP (`mcp_server_start_http`): made by
 * `mcp_http_options_new` with the defaults, changed by the
 * `mcp_http_options_*` setters, freed with `mcp_http_options_free`. The
 * server copies what it needs: the options may be freed or reused once
 * `mcp_server_start_http` returns. Not for use by several threads at once.
 *
 * Defaults: address `127.0.0.1:0` (loopback, any free port), only loopback
 * `Host`/`Origin` names accepted, sessions, SSE answers, a request body of at
 * most 4 MiB, a request head of at most 32 KiB, at most 10,000 sessions,
 * sessions idle for 30 minutes ended.
 */
typedef struct mcp_http_options mcp_http_options;

/**
 * An MCP server: registered tools, resources, resource templates and
 * prompts, answered by C callbacks. It owns a multi-thread runtime (two
 * engine threads plus a pool of threads for callbacks), made by
 * `mcp_server_new` and shut down by `mcp_server_free`.
 */
typedef struct mcp_server mcp_server;

/**
 * Releases what `userdata` points to (`mcp_server_on_free`,
 * `mcp_client_on_free`). Called once, after the last callback of the handle
 * has returned, on the thread that freed the handle (or, when it was freed
 * from one of its own callbacks, on a library thread once that callback has
 * returned).
 */
typedef void (*mcp_free_callback)(void *userdata);

/**
 * Receives a progress notification for the call it was given to (in
 * `mcp_call_options`): the progress so far, the total if known (NAN
 * otherwise) and an optional message (NULL if none; valid during the call
 * only). It runs on the thread that made the call, before the call returns.
 */
typedef void (*mcp_progress_callback)(void *userdata,
                                      double progress,
                                      double total,
                                      const char *message);

/**
 * Per-call options; pass NULL for the defaults, or start from
 * `MCP_CALL_OPTIONS_INIT` and set what you need
 * (`mcp_call_options options = MCP_CALL_OPTIONS_INIT; options.timeout_ms = 500;`).
 */
typedef struct mcp_call_options {
  /**
   * `sizeof(mcp_call_options)` as the caller's header declares it
   * (`MCP_CALL_OPTIONS_INIT` sets it), so that fields can be added in later
   * versions without breaking programs built against this one. A size
   * smaller than this first version's is `MCP_ERR_INVALID_ARGUMENT`; a
   * larger one (a program built against a newer header) is accepted, and
   * the fields this library does not know are ignored.
   */
  size_t struct_size;
  /**
   * Longest wait for the answer, in milliseconds; 0 uses the client's
   * default (`mcp_client_set_timeout`, otherwise 60 s). When it expires the
   * call fails with `MCP_ERR_TIMEOUT` and the request is cancelled. For
   * `mcp_client_call_tool` and `mcp_client_request` each progress
   * notification restarts the wait (up to 10 minutes in all).
   */
  uint64_t timeout_ms;
  /**
   * Called with each progress notification of this call
   * (`mcp_client_call_tool` and `mcp_client_request` only; it asks the
   * server for progress). May be NULL.
   */
  mcp_progress_callback on_progress;
  /**
   * Passed to `on_progress`.
   */
  void *userdata;
  /**
   * Cancels the call from another thread (`mcp_cancel_token_cancel`): it
   * then fails with `MCP_ERR_CANCELLED` and the server is told. May be
   * NULL; must stay valid until the call returns.
   */
  const struct mcp_cancel_token *cancel;
  /**
   * The W3C `traceparent` the request carries in its `_meta` (OpenTelemetry
   * trace context: `"00-<trace id>-<your span id>-<flags>"`), so that the
   * server's spans join your trace. May be NULL; a malformed value is
   * ignored. Added after the first layout (which ends at `cancel`): a
   * program built against a header without it passes that smaller
   * `struct_size`, which is accepted.
   */
  const char *traceparent;
  /**
   * The W3C `tracestate` sent with `traceparent` (ignored without it, or
   * when malformed). May be NULL.
   */
  const char *tracestate;
} mcp_call_options;

/**
 * Receives a notification from the server: `method` such as
 * `"notifications/tools/list_changed"` or `"notifications/message"` (a log
 * message; compare with the `MCP_METHOD_*` names), and its params as JSON
 * text (`"{}"` when it has none). Both strings are valid during the call
 * only.
 *
 * Notifications are delivered one at a time, in the order they arrived, on
 * a thread of the client's blocking pool; the callback may block and may
 * call `mcp_client_*` functions, including on this client (the engine keeps
 * running meanwhile; later notifications wait).
 */
typedef void (*mcp_notification_callback)(void *userdata,
                                          const char *method,
                                          const char *params_json);

/**
 * Answers a request from the server: `sampling/createMessage` (given to
 * `mcp_client_on_sampling`) or `elicitation/create` (given to
 * `mcp_client_on_elicitation`).
 *
 * Called on a thread of the client's blocking pool, never an engine thread,
 * so it may block (ask a user, call a model) and may call `mcp_client_*`
 * functions, including on this client. `params_json` is the request's
 * params (`CreateMessageRequestParams`, `ElicitRequestParams`).
 *
 * On success, return `MCP_OK` and set `*result_json` to the result
 * (`CreateMessageResult`, `ElicitResult`) made with `mcp_string_new`; the
 * library takes and frees it. On failure return another code; the server
 * gets a JSON-RPC error: with `MCP_ERR_RPC`, `*result_json` may be a JSON-RPC
 * error object (`{"code":-1,"message":"User rejected sampling request"}`)
 * sent as given; otherwise `*result_json` may be a plain message, sent with
 * code -32603.
 */
typedef mcp_result (*mcp_request_callback)(void *userdata,
                                           const char *params_json,
                                           char **result_json);

/**
 * Receives one line that the server process wrote to its stderr (without
 * the line end; valid during the call only). Delivered like notifications:
 * in order, on the client's blocking pool, interleaved with them.
 */
typedef void (*mcp_stderr_callback)(void *userdata, const char *line);

/**
 * Answers `completion/complete`: suggestions for a prompt argument or a
 * resource template variable.
 *
 * Called on a thread of the server's blocking pool. `params_json` is the
 * request's params: `{"ref":{"type":"ref/prompt","name":"…"},
 * "argument":{"name":"…","value":"what the user typed"},
 * "context":{"arguments":{…}}}` (or `"ref/resource"` with a `uri`). On
 * success, return `MCP_OK` and set `*result_json` to the completion object
 * (`{"values":["…"],"total":3,"hasMore":false}`, at most 100 values);
 * failures are reported as for `mcp_resource_callback`.
 */
typedef mcp_result (*mcp_completion_callback)(void *userdata,
                                              struct mcp_context *context,
                                              const char *params_json,
                                              char **result_json);

/**
 * Answers `tools/call` for one tool.
 *
 * Called on a thread of the server's blocking pool (never an engine
 * thread), possibly on several threads at once when calls overlap.
 * `arguments_json` is the call's `arguments` object, already validated
 * against the tool's input schema (`{}` when the client sent none).
 *
 * On success, return `MCP_OK` and set `*result_json` to a `CallToolResult`
 * (`{"content":[{"type":"text","text":"…"}]}`) made with `mcp_string_new`;
 * the library takes and frees it. On failure return any other code (e.g.
 * `MCP_ERR_CALLBACK`), optionally setting `*result_json` to a message made
 * with `mcp_string_new`: the client gets a result with `"isError": true` and
 * that message as text (the model sees it and may retry). To refuse the
 * call itself with a JSON-RPC error instead, return `MCP_ERR_RPC` with
 * `*result_json` set to the error object
 * (`{"code":-32602,"message":"…","data":{…}}`), sent as given. `context` is
 * valid until the callback returns.
 *
 * Arguments that do not match the tool's input schema never reach the
 * callback: the client gets a result with `"isError": true` whose text
 * begins `Invalid arguments` and names what failed (so that a model can
 * correct its call), not a JSON-RPC error.
 */
typedef mcp_result (*mcp_tool_callback)(void *userdata,
                                        struct mcp_context *context,
                                        const char *arguments_json,
                                        char **result_json);

/**
 * Answers `resources/read` for one resource or resource template.
 *
 * Called on a thread of the server's blocking pool. `params_json` is
 * `{"uri":"…"}` for a resource and `{"uri":"…","variables":{"name":"value"}}`
 * for a template (the values the URI gave the template's variables).
 *
 * On success, return `MCP_OK` and set `*result_json` to a
 * `ReadResourceResult` (`{"contents":[{"uri":"…","text":"…"}]}`) made with
 * `mcp_string_new`. On failure return another code; the client gets a
 * JSON-RPC error: with `MCP_ERR_RPC`, `*result_json` may be a JSON-RPC error
 * object (`{"code":-32002,"message":"…","data":{…}}`) sent as given;
 * otherwise `*result_json` may be a plain message, sent with code -32603.
 */
typedef mcp_result (*mcp_resource_callback)(void *userdata,
                                            struct mcp_context *context,
                                            const char *params_json,
                                            char **result_json);

/**
 * Answers `prompts/get` for one prompt.
 *
 * Called on a thread of the server's blocking pool. `arguments_json` is the
 * object of string arguments (`{"topic":"…"}`, `{}` when none); required
 * arguments have been checked. On success, return `MCP_OK` and set
 * `*result_json` to a `GetPromptResult` (`{"messages":[…]}`); failures are
 * reported as for `mcp_resource_callback`.
 */
typedef mcp_result (*mcp_prompt_callback)(void *userdata,
                                          struct mcp_context *context,
                                          const char *arguments_json,
                                          char **result_json);

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * Makes a token, not cancelled; `*token_out` receives it.
 *
 * # Safety
 * `token_out` is NULL or points to writable memory for one pointer.
 */
mcp_result mcp_cancel_token_new(struct mcp_cancel_token **token_out);

/**
 * Cancels every call using `token`, now and later. Callable from any
 * thread, also from callbacks; cancelling twice is fine.
 *
 * # Safety
 * `token` is NULL or a live token.
 */
mcp_result mcp_cancel_token_cancel(const struct mcp_cancel_token *token);

/**
 * Whether `token` was cancelled (false for NULL).
 *
 * # Safety
 * `token` is NULL or a live token.
 */
bool mcp_cancel_token_is_cancelled(const struct mcp_cancel_token *token);

/**
 * Frees a token. NULL is a no-op. No call may be using it.
 *
 * # Safety
 * `token` is NULL or a token from `mcp_cancel_token_new` not yet freed.
 */
void mcp_cancel_token_free(struct mcp_cancel_token *token);

/**
 * Makes a client that will introduce itself as `name` at `version`, and its
 * runtime; `*client_out` receives it, to be freed with `mcp_client_free`.
 * Configure it (`mcp_client_on_*`, `mcp_client_set_*`), then connect it.
 *
 * # Safety
 * `name` and `version` are NULL or NUL-terminated; `client_out` is NULL or
 * points to writable memory for one pointer.
 */
mcp_result mcp_client_new(const char *name, const char *version, struct mcp_client **client_out);

/**
 * Closes the session if open (as `mcp_client_close`), waits for callbacks
 * that are running to return, shuts the runtime down and frees the client.
 * After it returns no callback of this client runs. NULL is a no-op.
 *
 * No other call on this client may be running or start. Calling it from
 * inside one of this client's callbacks is allowed: that callback finishes
 * normally, the runtime shuts down in the background, and the cleanups
 * (`mcp_client_on_free`) run once the callback has returned.
 *
 * # Safety
 * `client` is NULL or a client from `mcp_client_new` not yet freed.
 */
void mcp_client_free(struct mcp_client *client);

/**
 * Registers `callback` to be called with `userdata` once the client is
 * freed and none of its callbacks can run any more: the place to release
 * what the callbacks' `userdata` point to. Cleanups run last registered
 * first (see `mcp_free_callback` for the thread). Callable any time before
 * `mcp_client_free`.
 *
 * # Safety
 * `client` is NULL or a live client; `callback` is NULL or a function of
 * the `mcp_free_callback` type.
 */
mcp_result mcp_client_on_free(const struct mcp_client *client,
                              mcp_free_callback callback,
                              void *userdata);

/**
 * Ends the session: calls in progress on other threads fail with
 * `MCP_ERR_CLOSED`, a child process is shut down (see
 * `mcp_client_connect_stdio`), an HTTP session is deleted. Returns once the
 * transport has closed. Later calls fail with `MCP_ERR_CLOSED`; the client
 * must still be freed. Closing a client that is not connected, or twice, is
 * fine.
 *
 * # Safety
 * `client` is NULL or a live client.
 */
mcp_result mcp_client_close(const struct mcp_client *client);

/**
 * Calls a tool (`tools/call`) with `arguments_json`, a JSON object (NULL for
 * none), and writes the `CallToolResult` to `*result_json`
 * (`{"content":[…],"isError":false}`).
 *
 * A tool that fails still returns `MCP_OK`, with `"isError": true` in the
 * result; `MCP_ERR_RPC` means the server refused the call itself (e.g. an
 * unknown tool, -32602). Structured content is checked against the tool's
 * output schema if `mcp_client_list_tools` saw one (`MCP_ERR_PROTOCOL` if
 * it does not match). Progress goes to `options->on_progress`.
 *
 * # Safety
 * `client` is NULL or a live client; the strings are NULL or
 * NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
 * points to writable memory for one `char *`.
 */
mcp_result mcp_client_call_tool(const struct mcp_client *client,
                                const char *name,
                                const char *arguments_json,
                                const struct mcp_call_options *options,
                                char **result_json);

/**
 * Gets a prompt (`prompts/get`) with `arguments_json`, a JSON object of
 * string values (`{"topic":"cats"}`, NULL for none): `*result_json` is the
 * `GetPromptResult` (`{"messages":[{"role":"user","content":{…}}]}`).
 *
 * # Safety
 * `client` is NULL or a live client; the strings are NULL or
 * NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
 * points to writable memory for one `char *`.
 */
mcp_result mcp_client_get_prompt(const struct mcp_client *client,
                                 const char *name,
                                 const char *arguments_json,
                                 const struct mcp_call_options *options,
                                 char **result_json);

/**
 * Asks for completions of a prompt argument or a resource template variable
 * (`completion/complete`). `params_json` is the request's params:
 * `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"Al"}}`
 * (or `{"type":"ref/resource","uri":"file:///{path}"}` as `ref`);
 * `*result_json` is the `CompleteResult`
 * (`{"completion":{"values":["Alice","Alan"],"hasMore":false}}`).
 * `MCP_ERR_CAPABILITY` if the server did not declare `completions`.
 *
 * # Safety
 * `client` is NULL or a live client; `params_json` is NULL or
 * NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
 * points to writable memory for one `char *`.
 */
mcp_result mcp_client_complete(const struct mcp_client *client,
                               const char *params_json,
                               const struct mcp_call_options *options,
                               char **result_json);

/**
 * Asks the server to send log messages at `level` and above
 * (`logging/setLevel`; `"debug"`, `"info"`, `"notice"`, `"warning"`,
 * `"error"`, `"critical"`, `"alert"`, `"emergency"`). They arrive as
 * `notifications/message` at the notification callback.
 *
 * # Safety
 * `client` is NULL or a live client; `level` is NULL or NUL-terminated;
 * `options` is NULL or valid.
 */
mcp_result mcp_client_set_logging_level(const struct mcp_client *client,
                                        const char *level,
                                        const struct mcp_call_options *options);

/**
 * Sends any request, `method` (an `MCP_METHOD_*` name or an extension's)
 * with `params_json` (a JSON object, or NULL for none), and writes the raw
 * result to `*result_json`: for what has no function of its own (one page
 * of a list request with a cursor, extensions). No capability checks are
 * made. Progress goes to
 * `options->on_progress`.
 *
 * # Safety
 * `client` is NULL or a live client; the strings are NULL or
 * NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
 * points to writable memory for one `char *`.
 */
mcp_result mcp_client_request(const struct mcp_client *client,
                              const char *method,
                              const char *params_json,
                              const struct mcp_call_options *options,
                              char **result_json);

/**
 * Sends any notification, `method` (an `MCP_METHOD_*` name or an
 * extension's) with `params_json` (a JSON object, or NULL for none).
 *
 * # Safety
 * `client` is NULL or a live client; the strings are NULL or
 * NUL-terminated.
 */
mcp_result mcp_client_notify(const struct mcp_client *client,
                             const char *method,
                             const char *params_json);

/**
 * Checks that the server answers; revisions without `ping` send
 * `server/discover` instead. Sends `ping`.
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or points to a valid
 * `mcp_call_options`.
 */
mcp_result mcp_client_ping(const struct mcp_client *client, const struct mcp_call_options *options);

/**
 * Every tool the server offers. Sends `tools/list`, following cursors
 * through all pages: `*result_json` is `{"tools":[…]}`, each a `Tool`.
 * `MCP_ERR_CAPABILITY` if the server does not declare `tools`.
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or points to a valid
 * `mcp_call_options`; `result_json` is NULL or points to writable memory for
 * one `char *`.
 */
mcp_result mcp_client_list_tools(const struct mcp_client *client,
                                 const struct mcp_call_options *options,
                                 char **result_json);

/**
 * Every resource the server offers. Sends `resources/list`, following
 * cursors through all pages: `*result_json` is `{"resources":[…]}`, each a
 * `Resource`. `MCP_ERR_CAPABILITY` if the server does not declare
 * `resources`.
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or points to a valid
 * `mcp_call_options`; `result_json` is NULL or points to writable memory for
 * one `char *`.
 */
mcp_result mcp_client_list_resources(const struct mcp_client *client,
                                     const struct mcp_call_options *options,
                                     char **result_json);

/**
 * Every resource template the server offers. Sends
 * `resources/templates/list`, following cursors through all pages:
 * `*result_json` is `{"resourceTemplates":[…]}`, each a `ResourceTemplate`.
 * `MCP_ERR_CAPABILITY` if the server does not declare `resources`.
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or points to a valid
 * `mcp_call_options`; `result_json` is NULL or points to writable memory for
 * one `char *`.
 */
mcp_result mcp_client_list_resource_templates(const struct mcp_client *client,
                                              const struct mcp_call_options *options,
                                              char **result_json);

/**
 * Every prompt the server offers. Sends `prompts/list`, following cursors
 * through all pages: `*result_json` is `{"prompts":[…]}`, each a `Prompt`.
 * `MCP_ERR_CAPABILITY` if the server does not declare `prompts`.
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or points to a valid
 * `mcp_call_options`; `result_json` is NULL or points to writable memory for
 * one `char *`.
 */
mcp_result mcp_client_list_prompts(const struct mcp_client *client,
                                   const struct mcp_call_options *options,
                                   char **result_json);

/**
 * Reads the resource at `uri`; an unknown URI is a JSON-RPC error, usually
 * -32002. Sends `resources/read`: `*result_json` is the
 * `ReadResourceResult`. `MCP_ERR_CAPABILITY` if the server does not declare
 * `resources`.
 *
 * # Safety
 * `client` is NULL or a live client; `uri` is NULL or NUL-terminated;
 * `options` is NULL or points to a valid `mcp_call_options`; `result_json`
 * is NULL or points to writable memory for one `char *`.
 */
mcp_result mcp_client_read_resource(const struct mcp_client *client,
                                    const char *uri,
                                    const struct mcp_call_options *options,
                                    char **result_json);

/**
 * Subscribes to updates of the resource at `uri`; they arrive as
 * `notifications/resources/updated` notifications. Sends
 * `resources/subscribe`. `MCP_ERR_CAPABILITY` if the server does not declare
 * `resources.subscribe`.
 *
 * # Safety
 * `client` is NULL or a live client; `uri` is NULL or NUL-terminated;
 * `options` is NULL or points to a valid `mcp_call_options`.
 */
mcp_result mcp_client_subscribe_resource(const struct mcp_client *client,
                                         const char *uri,
                                         const struct mcp_call_options *options);

/**
 * Ends a subscription to the resource at `uri`. Sends
 * `resources/unsubscribe`. `MCP_ERR_CAPABILITY` if the server does not
 * declare `resources.subscribe`.
 *
 * # Safety
 * `client` is NULL or a live client; `uri` is NULL or NUL-terminated;
 * `options` is NULL or points to a valid `mcp_call_options`.
 */
mcp_result mcp_client_unsubscribe_resource(const struct mcp_client *client,
                                           const char *uri,
                                           const struct mcp_call_options *options);

/**
 * Sets the default timeout of this client's requests, including the
 * `initialize` handshake (default 60 s); per-call options can override it.
 * Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client.
 */
mcp_result mcp_client_set_timeout(const struct mcp_client *client, uint64_t timeout_ms);

/**
 * Speaks this protocol revision only (e.g. `"2025-06-18"`): the same as
 * `mcp_client_set_protocol` with a revision. Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client; `version` is NULL or NUL-terminated.
 */
mcp_result mcp_client_set_protocol_version(const struct mcp_client *client, const char *version);

/**
 * Chooses how the protocol revision is agreed when connecting:
 * - `"auto"` (the default): the newest revision both sides speak, probed
 *   with `server/discover` (2026-07-28) and falling back to `initialize`
 *   for older servers;
 * - `"legacy"`: `initialize` only (2025-11-25 and older);
 * - a revision such as `"2026-07-28"` or `"2025-11-25"`: that one only; a
 *   server that does not speak it fails the connect.
 *
 * Anything else fails with `MCP_ERR_INVALID_ARGUMENT`, the message naming
 * the accepted values. The callbacks (sampling, elicitation, roots) answer
 * the server the same way at every revision: under 2026-07-28 the library
 * calls them for the input-required rounds of the request that needs them
 * and retries it. `mcp_client_protocol_version` tells which revision was
 * agreed. Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client; `protocol` is NULL or NUL-terminated.
 */
mcp_result mcp_client_set_protocol(const struct mcp_client *client, const char *protocol);

/**
 * Sets the callback that receives the server's notifications (see
 * `mcp_notification_callback`). `userdata` must stay valid until the client
 * is freed. Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client; `callback` is NULL or a function of the
 * `mcp_notification_callback` type.
 */
mcp_result mcp_client_on_notification(const struct mcp_client *client,
                                      mcp_notification_callback callback,
                                      void *userdata);

/**
 * Sets the callback that answers the server's `sampling/createMessage`
 * requests, and so declares the `sampling` capability (see
 * `mcp_request_callback`). `userdata` must stay valid until the client is
 * freed. Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client; `callback` is NULL or a function of the
 * `mcp_request_callback` type.
 */
mcp_result mcp_client_on_sampling(const struct mcp_client *client,
                                  mcp_request_callback callback,
                                  void *userdata);

/**
 * Sets the callback that answers the server's `elicitation/create` requests
 * (form mode), and so declares the `elicitation` capability (see
 * `mcp_request_callback`). `userdata` must stay valid until the client is
 * freed. Only before connecting.
 *
 * # Safety
 * As for `mcp_client_on_sampling`.
 */
mcp_result mcp_client_on_elicitation(const struct mcp_client *client,
                                     mcp_request_callback callback,
                                     void *userdata);

/**
 * Sets the callback that receives each line the server process writes to
 * its stderr (`mcp_client_connect_stdio` only; see `mcp_stderr_callback`).
 * Without one, those lines are dropped. Only before connecting.
 *
 * # Safety
 * `client` is NULL or a live client; `callback` is NULL or a function of the
 * `mcp_stderr_callback` type.
 */
mcp_result mcp_client_on_stderr(const struct mcp_client *client,
                                mcp_stderr_callback callback,
                                void *userdata);

/**
 * Sets the roots offered to the server: a JSON array of `Root` objects
 * (`[{"uri":"file:///home/me/project","name":"project"}]`). Before
 * connecting this declares the `roots` capability, and the library answers
 * the server's `roots/list` requests with the current list. After
 * connecting (only if roots were set before) it replaces the list and sends
 * `notifications/roots/list_changed`.
 *
 * # Safety
 * `client` is NULL or a live client; `roots_json` is NULL or NUL-terminated.
 */
mcp_result mcp_client_set_roots(const struct mcp_client *client, const char *roots_json);

/**
 * Starts `command` as a child process and connects to it over its stdin and
 * stdout, then initializes the session (blocking until the server answers,
 * up to the client's timeout).
 *
 * `args` is the NULL-terminated list of arguments after the program name
 * (NULL for none). The child does not inherit this process's environment:
 * it gets a small safe set (`PATH`, `HOME`, `LANG`, `TERM`, `USER`, …) plus
 * the `"NAME=value"` entries of the NULL-terminated `envp` (NULL for none).
 * Its stderr goes to the `mcp_client_on_stderr` callback. Closing or freeing
 * the client closes the child's stdin, then after 2 s sends SIGTERM, then
 * after 2 s more SIGKILL, to its process group. If the process dies, pending
 * and later calls fail with `MCP_ERR_CLOSED`.
 *
 * # Safety
 * `client` is NULL or a live client; `command` is NULL or NUL-terminated;
 * `args` and `envp` are NULL or NULL-terminated arrays of NUL-terminated
 * strings.
 */
mcp_result mcp_client_connect_stdio(const struct mcp_client *client,
                                    const char *command,
                                    const char *const *args,
                                    const char *const *envp);

/**
 * Connects to the Streamable HTTP endpoint at `url`
 * (`"http://127.0.0.1:8080/mcp"`) and initializes the session. `headers` is
 * a NULL-terminated list of `"Name: value"` strings sent with every request
 * (e.g. `"Authorization: Bearer …"`), or NULL. A request that cannot be sent
 * (connection refused or reset, here or later) fails with
 * `MCP_ERR_TRANSPORT`.
 *
 * # Safety
 * `client` is NULL or a live client; `url` is NULL or NUL-terminated;
 * `headers` is NULL or a NULL-terminated array of NUL-terminated strings.
 */
mcp_result mcp_client_connect_http(const struct mcp_client *client,
                                   const char *url,
                                   const char *const *headers);

/**
 * Writes what the server said when it initialized:
 * `{"protocolVersion":"…","capabilities":{…},"serverInfo":{"name":…,"version":…},"instructions":"…"}`
 * (`instructions` only if it gave some).
 *
 * # Safety
 * `client` is NULL or a live client; `info_json` is NULL or points to
 * writable memory for one `char *`.
 */
mcp_result mcp_client_server_info(const struct mcp_client *client,
                                  char **info_json);

/**
 * The protocol revision agreed with the server, such as `"2026-07-28"`, or
 * NULL if the client is NULL or not connected (see
 * `mcp_last_error_message()`). The string is the library's and static:
 * never free it; it stays valid for the life of the program.
 *
 * # Safety
 * `client` is NULL or a live client.
 */
const char *mcp_client_protocol_version(const struct mcp_client *client);

/**
 * Lists every skill the server offers (`skills/list`, all pages):
 * `*result_json` is `{"skills":[{"uri":…,"frontmatter":{…},"resources":…},…]}`.
 * `MCP_ERR_CAPABILITY` if the server does not declare the skills
 * extension (so for each function here).
 *
 * # Safety
 * `client` is NULL or a live client; `options` is NULL or valid;
 * `result_json` is NULL or points to writable memory for one `char *`.
 */
mcp_result mcp_client_list_skills(const struct mcp_client *client,
                                  const struct mcp_call_options *options,
                                  char **result_json);

/**
 * Looks up the skill at `uri` (`skills/get`, a `skill://…` URI):
 * `*result_json` is its entry, `{"uri":…,"frontmatter":{…},"resources":…}`.
 *
 * # Safety
 * `client` is NULL or a live client; `uri` is NULL or NUL-terminated;
 * `options` is NULL or valid; `result_json` is NULL or points to writable
 * memory for one `char *`.
 */
mcp_result mcp_client_get_skill(const struct mcp_client *client,
                                const char *uri,
                                const struct mcp_call_options *options,
                                char **result_json);

/**
 * Loads the skill at `uri`: looks it up, reads its `SKILL.md` and verifies
 * it against the entry. `*result_json` is
 * `{"skill":{…entry…},"skillMd":"---\nname: …"}`. A file that does not
 * match its entry (size, digest, frontmatter) is `MCP_ERR_PROTOCOL`, and
 * nothing of it is written.
 *
 * # Safety
 * As for `mcp_client_get_skill`.
 */
mcp_result mcp_client_load_skill(const struct mcp_client *client,
                                 const char *uri,
                                 const struct mcp_call_options *options,
                                 char **result_json);

/**
 * Reads `file_uri`, one of the files of the skill at `skill_uri` (as its
 * entry lists them), and verifies it against the entry: `*result_json` is
 * `{"uri":…,"text":…}` for UTF-8 content, else `{"uri":…,"blob":"<base64>"}`
 * (the forms of resource contents). A mismatch, or a file the entry does
 * not list, is `MCP_ERR_PROTOCOL`.
 *
 * # Safety
 * `client` is NULL or a live client; the URIs are NULL or NUL-terminated;
 * `options` is NULL or valid; `result_json` is NULL or points to writable
 * memory for one `char *`.
 */
mcp_result mcp_client_read_skill_file(const struct mcp_client *client,
                                      const char *skill_uri,
                                      const char *file_uri,
                                      const struct mcp_call_options *options,
                                      char **result_json);

/**
 * Starts calling tool `name` as a task, with `arguments_json` (a JSON
 * object, NULL for none) and, when `ttl_ms` is positive, the lifetime the
 * task asks for. `*result_json` is `{"task":{"taskId":…,"status":"working",
 * "pollIntervalMs":…,…}}` when the server made a task — read it with
 * `mcp_client_get_task`, wait with `mcp_client_tool_task_result` — or
 * `{"result":{…}}` (the `CallToolResult`) when the server ran the call at
 * once (under 2026-07-28 the server decides: a tool that does not run as a
 * task answers directly).
 *
 * `MCP_ERR_CAPABILITY` when the server offers no tool tasks (2025-11-25:
 * no `tasks.requests.tools.call`; 2026-07-28: the extension is not in its
 * `server/discover` answer); `MCP_ERR_RPC` when it refuses the call.
 *
 * # Safety
 * `client` is NULL or a live client; the strings are NULL or
 * NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
 * points to writable memory for one `char *`.
 */
mcp_result mcp_client_start_tool_task(const struct mcp_client *client,
                                      const char *name,
                                      const char *arguments_json,
                                      int64_t ttl_ms,
                                      const struct mcp_call_options *options,
                                      char **result_json);

/**
 * Reads a task's status (`tasks/get`): `*result_json` is the task
 * (`{"taskId":…,"status":"working"|"input_required"|"completed"|"failed"|
 * "cancelled","statusMessage":…,"pollIntervalMs":…,…}`).
 *
 * # Safety
 * `client` is NULL or a live client; `task_id` is NULL or NUL-terminated;
 * `options` is NULL or valid; `result_json` is NULL or points to writable
 * memory for one `char *`.
 */
mcp_result mcp_client_get_task(const struct mcp_client *client,
                               const char *task_id,
                               const struct mcp_call_options *options,
                               char **result_json);

/**
 * Waits for a tool task to end and writes its `CallToolResult` to
 * `*result_json`. A task that failed is `MCP_ERR_RPC` with the task's
 * error; one that was cancelled is `MCP_ERR_CANCELLED`. Input the task asks
 * for (elicitation, sampling) is answered by the client's callbacks. The
 * wait is bounded by `options->timeout_ms` when set (the task goes on).
 *
 * # Safety
 * As for `mcp_client_get_task`.
 */
mcp_result mcp_client_tool_task_result(const struct mcp_client *client,
                                       const char *task_id,
                                       const struct mcp_call_options *options,
                                       char **result_json);

/**
 * Cancels a task (`tasks/cancel`): `*result_json` receives the task as it
 * is after the cancellation. Cancelling a task that has
 * ended is `MCP_ERR_RPC` (-32602).
 *
 * # Safety
 * `client` is NULL or a live client; `task_id` is NULL or NUL-terminated;
 * `options` is NULL or valid; `result_json` is NULL or points to writable
 * memory for one `char *`.
 */
mcp_result mcp_client_cancel_task(const struct mcp_client *client,
                                  const char *task_id,
                                  const struct mcp_call_options *options,
                                  char **result_json);

/**
 * Lists the tasks this client may see (`tasks/list`, one page from
 * `cursor`, NULL for the first): `*result_json` is
 * `{"tasks":[…],"nextCursor":…}`. Only in a 2025-11-25 session (the
 * 2026-07-28 tasks extension has no list): `MCP_ERR_PROTOCOL` otherwise.
 *
 * # Safety
 * `client` is NULL or a live client; `cursor` is NULL or NUL-terminated;
 * `options` is NULL or valid; `result_json` is NULL or points to writable
 * memory for one `char *`.
 */
mcp_result mcp_client_list_tasks(const struct mcp_client *client,
                                 const char *cursor,
                                 const struct mcp_call_options *options,
                                 char **result_json);

/**
 * Reports progress on the request, if the client asked for progress (it
 * does nothing otherwise). `progress` should grow with each call; `total` is
 * the value it will reach, or NAN if unknown; `message` may be NULL.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL);
 * `message` is NULL or a NUL-terminated string.
 */
mcp_result mcp_context_progress(const struct mcp_context *context,
                                double progress,
                                double total,
                                const char *message);

/**
 * Sends a log message (`notifications/message`) to the client, if `level`
 * passes the level the client set with `logging/setLevel` (everything passes
 * until it sets one). `level` is one of `"debug"`, `"info"`, `"notice"`,
 * `"warning"`, `"error"`, `"critical"`, `"alert"`, `"emergency"`; `logger`
 * names the source and may be NULL; `message` is sent as the log's data
 * (a JSON string).
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL); the
 * strings are NULL or NUL-terminated.
 */
mcp_result mcp_context_log(const struct mcp_context *context,
                           const char *level,
                           const char *logger,
                           const char *message);

/**
 * Whether the client cancelled the request (or the session ended, or the
 * answer is no longer awaited: see `mcp_context_create_message`). A long
 * callback may poll this and give up early; its result is then discarded.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL, which
 * gives false).
 */
bool mcp_context_is_cancelled(const struct mcp_context *context);

/**
 * Asks the client's model for a completion (`sampling/createMessage`) and
 * waits for it. `params_json` is a `CreateMessageRequestParams` object
 * (`{"messages":[…],"maxTokens":100}`); on success `*result_json` is the
 * `CreateMessageResult`. Fails with `MCP_ERR_CAPABILITY` (without asking)
 * when the client did not declare `sampling`.
 *
 * Under 2026-07-28 a question in a request that stands alone goes to the
 * client as an input-required result, and the client's retry runs the
 * callback again from the start, where the same question is answered at
 * once. The first run's call fails with `MCP_ERR_CANCELLED` as soon as the
 * question has gone out: return then (the result is discarded). A callback
 * must ask the same questions in the same order on each run. The same
 * holds for `mcp_context_elicit` and `mcp_context_list_roots`.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL);
 * `params_json` is NULL or NUL-terminated; `result_json` is NULL or points
 * to writable memory for one `char *`.
 */
mcp_result mcp_context_create_message(const struct mcp_context *context,
                                      const char *params_json,
                                      char **result_json);

/**
 * Asks the user for input through the client (`elicitation/create`) and
 * waits for the answer. `params_json` is an `ElicitRequestParams` object
 * (`{"message":"…","requestedSchema":{…}}`); on success `*result_json` is
 * the `ElicitResult` (`{"action":"accept","content":{…}}`). Fails with
 * `MCP_ERR_CAPABILITY` when the client did not declare `elicitation`.
 * Under 2026-07-28 see `mcp_context_create_message`.
 *
 * # Safety
 * As for `mcp_context_create_message`.
 */
mcp_result mcp_context_elicit(const struct mcp_context *context,
                              const char *params_json,
                              char **result_json);

/**
 * Asks the client for its roots (`roots/list`) and waits for them;
 * `*result_json` is the `ListRootsResult` (`{"roots":[{"uri":…}]}`). Fails
 * with `MCP_ERR_CAPABILITY` when the client did not declare `roots`.
 * Under 2026-07-28 see `mcp_context_create_message`.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL);
 * `result_json` is NULL or points to writable memory for one `char *`.
 */
mcp_result mcp_context_list_roots(const struct mcp_context *context, char **result_json);

/**
 * Writes what the client said about itself when it initialized:
 * `{"clientInfo":{"name":…,"version":…},"capabilities":{…},"protocolVersion":"…"}`.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL);
 * `info_json` is NULL or points to writable memory for one `char *`.
 */
mcp_result mcp_context_client_info(const struct mcp_context *context, char **info_json);

/**
 * Connects to every server of the `mcpServers` configuration
 * `config_json` (JSON text, as Claude Desktop, Cursor and VS Code write
 * it) at once, introducing itself as `name` at `version`; returns when
 * each server has connected or failed (`mcp_group_status`). `*group_out`
 * receives the group, to be freed with `mcp_group_free`. An invalid
 * configuration is `MCP_ERR_INVALID_ARGUMENT`, its message naming the
 * entry.
 *
 * # Safety
 * The strings are NULL or NUL-terminated; `group_out` is NULL or points to
 * writable memory for one pointer.
 */
mcp_result mcp_group_connect(const char *config_json,
                             const char *name,
                             const char *version,
                             struct mcp_group **group_out);

/**
 * As `mcp_group_connect`, with the configuration read from the file at
 * `path`.
 *
 * # Safety
 * As for `mcp_group_connect`.
 */
mcp_result mcp_group_connect_file(const char *path,
                                  const char *name,
                                  const char *version,
                                  struct mcp_group **group_out);

/**
 * Every server's state: `*result_json` is `{"servers":[{"name","type",
 * "target","state","error","protocolVersion","serverInfo","tools",
 * "connections"},…]}` in configuration order (the same text as Python's
 * `ClientGroup.status_json()` and `mcp servers list --json`); `state` is
 * `connecting`, `connected`, `failed`, `disconnected` or `closed`.
 *
 * # Safety
 * `group` is NULL or a live group; `result_json` is NULL or points to
 * writable memory for one `char *`.
 */
mcp_result mcp_group_status(const struct mcp_group *group, char **result_json);

/**
 * The merged tool list: `*result_json` is `{"tools":[…]}`, each tool
 * named `server__tool`.
 *
 * # Safety
 * As for `mcp_group_status`.
 */
mcp_result mcp_group_list_tools(const struct mcp_group *group, char **result_json);

/**
 * Calls merged tool `name` (`server__tool`) with `arguments_json` (a JSON
 * object, or NULL); `*result_json` is the `CallToolResult`. A tool of a
 * server that is not connected fails naming the server.
 *
 * # Safety
 * `group` is NULL or a live group; the strings are NULL or NUL-terminated;
 * `result_json` is NULL or points to writable memory for one `char *`.
 */
mcp_result mcp_group_call_tool(const struct mcp_group *group,
                               const char *name,
                               const char *arguments_json,
                               char **result_json);

/**
 * Reads `uri` from the server that lists it (or has a matching template);
 * `*result_json` is the `ReadResourceResult`.
 *
 * # Safety
 * As for `mcp_group_call_tool`.
 */
mcp_result mcp_group_read_resource(const struct mcp_group *group,
                                   const char *uri,
                                   char **result_json);

/**
 * Closes every connection (child processes are shut down), shuts the
 * group's runtime down and frees it. NULL is a no-op.
 *
 * # Safety
 * `group` is NULL or a group from `mcp_group_connect` not yet freed, with
 * no call on it running.
 */
void mcp_group_free(struct mcp_group *group);

/**
 * Makes options with the defaults; `*options_out` receives them, to be
 * freed with `mcp_http_options_free`.
 *
 * # Safety
 * `options_out` is NULL or points to writable memory for one pointer.
 */
mcp_result mcp_http_options_new(struct mcp_http_options **options_out);

/**
 * Frees options. NULL is a no-op.
 *
 * # Safety
 * `options` is NULL or options from `mcp_http_options_new` not yet freed.
 */
void mcp_http_options_free(struct mcp_http_options *options);

/**
 * Sets the address to listen on, such as `"0.0.0.0:8080"` or
 * `"[::]:8080"` (default `"127.0.0.1:0"`; port 0 picks a free port).
 * Listening on a non-loopback address needs `mcp_http_options_allow_host`
 * (or `mcp_http_options_allow_any_host`) for the names clients use.
 *
 * # Safety
 * `options` is NULL or live options; `address` is NULL or NUL-terminated.
 */
mcp_result mcp_http_options_set_address(struct mcp_http_options *options, const char *address);

/**
 * Accepts `host` (`"mcp.example.com"`, `"mcp.example.com:8443"`, compared
 * without regard to case) as the `Host` header, and as the host of an
 * `Origin` header when a request has one (DNS-rebinding protection). The
 * first call replaces the default, which accepts only loopback names
 * (`localhost`, `127.0.0.1`, `[::1]`, any port); list those too if loopback
 * clients should still be served. Call once per name; `"*"` accepts any.
 *
 * # Safety
 * `options` is NULL or live options; `host` is NULL or NUL-terminated.
 */
mcp_result mcp_http_options_allow_host(struct mcp_http_options *options, const char *host);

/**
 * Accepts any `Host` and `Origin` (`true`; for a server behind a proxy that
 * checks them), or goes back to the default loopback-only check (`false`,
 * which also forgets the hosts allowed so far).
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_allow_any_host(struct mcp_http_options *options, bool any);

/**
 * Serves without sessions when `true`: every POST stands alone (no
 * `Mcp-Session-Id`, no GET stream; default `false`).
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_stateless(struct mcp_http_options *options, bool stateless);

/**
 * Answers every request with one `application/json` body, never an SSE
 * stream, when `true` (default `false`). Messages a callback sends before
 * its result (progress, logs) then go to the session's GET stream.
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_json_response(struct mcp_http_options *options, bool json);

/**
 * Cancels a request whose client goes away before its answer, as if the
 * client had cancelled it (`mcp_context_is_cancelled` turns true), when
 * `true` (default `false`: the callback runs to the end).
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_cancel_on_disconnect(struct mcp_http_options *options, bool cancel);

/**
 * The largest request body in bytes (at least 1; default 4 MiB); a larger
 * one is answered 413.
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_max_body_size(struct mcp_http_options *options, size_t bytes);

/**
 * The largest total size of a request's header fields in bytes (at least 1;
 * default 32 KiB); larger is answered 431. The HTTP layer's own limits
 * (a head over about 400 KiB, or over 100 fields) apply first.
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_max_header_size(struct mcp_http_options *options, size_t bytes);

/**
 * The most sessions open at once (at least 1; default 10,000); an
 * `initialize` beyond that is answered 503.
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_max_sessions(struct mcp_http_options *options, size_t sessions);

/**
 * Ends sessions that have been idle for `milliseconds` (at least 1;
 * default 30 minutes).
 *
 * # Safety
 * `options` is NULL or live options.
 */
mcp_result mcp_http_options_set_idle_timeout_ms(struct mcp_http_options *options,
                                                uint64_t milliseconds);

/**
 * Shares sessions, stream events, tasks, changes and the `requestState`
 * key with the other replicas of this server through the store at `url`
 * (`"redis://HOST:PORT/DB"`, `"rediss://…"`, with `user:password@` if
 * needed), so that a load balancer may send any request to any replica.
 * NULL, `""` or `"memory"` goes back to the default: everything in this
 * process only.
 * `mcp_server_start_http` connects and fails with `MCP_ERR_TRANSPORT`,
 * naming the store, if it does not answer within a few seconds.
 *
 * # Safety
 * `options` is NULL or live options; `url` is NULL or NUL-terminated.
 */
mcp_result mcp_http_options_set_store(struct mcp_http_options *options, const char *url);

/**
 * The message of the most recent call on the calling thread that failed
 * (an empty string if none has). Never NULL.
 *
 * Successful calls do not clear it. The pointer belongs to the library and
 * stays valid until another call on this thread fails; copy the text to
 * keep it longer.
 */
const char *mcp_last_error_message(void);

/**
 * The result code of the most recent call on the calling thread that
 * failed, or `MCP_OK` if none has.
 */
mcp_result mcp_last_error_code(void);

/**
 * When the most recent failure on the calling thread was `MCP_ERR_RPC`,
 * writes the JSON-RPC error code (e.g. -32602) to `*code` and returns true;
 * otherwise returns false and leaves `*code` alone. `code` may be NULL to
 * only ask whether there is one.
 *
 * # Safety
 * `code` is NULL or points to writable memory for one `int64_t`.
 */
bool mcp_last_error_rpc_code(int64_t *code);

/**
 * The `data` member of the JSON-RPC error of the most recent failure on the
 * calling thread, as JSON text, or NULL when that failure was not
 * `MCP_ERR_RPC` or the error had no data. Valid as long as
 * `mcp_last_error_message()`'s pointer.
 */
const char *mcp_last_error_rpc_data(void);

/**
 * The name of a result code, such as `"MCP_ERR_TIMEOUT"` (a static string;
 * `"MCP_ERR_UNKNOWN"` for a value that is not a code).
 */
const char *mcp_result_name(mcp_result result);

/**
 * Makes a server named `name` at `version` (sent to clients when they
 * initialize) and its runtime; `*server_out` receives it, to be freed with
 * `mcp_server_free`.
 *
 * # Safety
 * `name` and `version` are NULL or NUL-terminated; `server_out` is NULL or
 * points to writable memory for one pointer.
 */
mcp_result mcp_server_new(const char *name, const char *version, struct mcp_server **server_out);

/**
 * Stops the server (as `mcp_server_stop`), waits for callbacks that are
 * running to return, shuts its runtime down and frees it. After it returns
 * no callback of this server runs (except the one calling it, below). NULL
 * is a no-op.
 *
 * No other call on this server may be running or start, with one
 * exception: it may be called from inside one of this server's own
 * callbacks, whatever the server serves (stdio, HTTP or both). That
 * callback finishes normally and its answer still reaches the client; once
 * it has returned, the sessions (stdio and HTTP) end, a
 * `mcp_server_serve_stdio` or `mcp_server_wait` blocked on another thread
 * returns `MCP_OK` (the server is gone: do not free it again), the runtime
 * shuts down in the background, and the cleanups run.
 *
 * # Safety
 * `server` is NULL or a server from `mcp_server_new` not yet freed.
 */
void mcp_server_free(struct mcp_server *server);

/**
 * Registers `callback` to be called with `userdata` once the server is
 * freed and none of its callbacks can run any more: the place to release
 * what the callbacks' `userdata` point to. Cleanups run last registered
 * first (see `mcp_free_callback` for the thread). Callable any time before
 * `mcp_server_free`.
 *
 * # Safety
 * `server` is NULL or a live server; `callback` is NULL or a function of
 * the `mcp_free_callback` type.
 */
mcp_result mcp_server_on_free(const struct mcp_server *server,
                              mcp_free_callback callback,
                              void *userdata);

/**
 * Sets the instructions sent to clients when they initialize (hints for the
 * model on how to use the server). Only before the server is first served.
 *
 * # Safety
 * `server` is NULL or a live server; `instructions` is NULL or
 * NUL-terminated.
 */
mcp_result mcp_server_set_instructions(const struct mcp_server *server, const char *instructions);

/**
 * Sets the callback that answers `completion/complete` (see
 * `mcp_completion_callback`), and so declares the `completions`
 * capability. Only before the server is first served.
 *
 * # Safety
 * `server` is NULL or a live server; `callback` is NULL or a function of
 * the `mcp_completion_callback` type.
 */
mcp_result mcp_server_set_completion(const struct mcp_server *server,
                                     mcp_completion_callback callback,
                                     void *userdata);

/**
 * Declares capabilities (`MCP_CAPABILITY_TOOLS | MCP_CAPABILITY_RESOURCES |
 * MCP_CAPABILITY_PROMPTS`) even if nothing of that kind is registered yet,
 * so that such items can be added while serving. A kind with anything
 * registered before the server is first served is declared anyway. Only
 * before the server is first served.
 *
 * # Safety
 * `server` is NULL or a live server.
 */
mcp_result mcp_server_declare(const struct mcp_server *server, uint32_t capabilities);

/**
 * Registers a tool, or replaces the one with the same name, before or while
 * serving. While serving, connected clients get
 * `notifications/tools/list_changed` (sent in the background: this does not
 * wait for them); the `tools` capability must have been declared when the
 * server was first served (a tool was registered then, or
 * `mcp_server_declare`), otherwise `MCP_ERR_CAPABILITY`.
 *
 * `name` must follow SEP-986 (1–128 of `A-Z a-z 0-9 _ - .`);
 * `description` may be NULL; `input_schema_json` is the JSON Schema of the
 * arguments, an object schema (`{"type":"object","properties":{…}}`) served
 * exactly as given and checked against every call before `callback` runs.
 * `userdata` is passed to `callback` and must stay valid until the server is
 * freed (or the tool removed and no call of it running).
 *
 * # Safety
 * `server` is NULL or a live server; the strings are NULL or NUL-terminated;
 * `callback` is NULL or a function of the `mcp_tool_callback` type.
 */
mcp_result mcp_server_add_tool(const struct mcp_server *server,
                               const char *name,
                               const char *description,
                               const char *input_schema_json,
                               mcp_tool_callback callback,
                               void *userdata);

/**
 * Registers a tool described by `tool_json`, a `Tool` object as
 * `tools/list` shows it: `name` and `inputSchema` are required; `title`,
 * `description`, `outputSchema`, `annotations`, `icons`, `execution`
 * (`{"taskSupport":…}`) and `_meta` are served as given. Otherwise as
 * `mcp_server_add_tool`. With an `outputSchema`, a result's
 * `structuredContent` should match it (clients check it). With
 * `"execution":{"taskSupport":"optional"}` (or `"required"`) the tool runs
 * as a task when a client asks for one (2025-11-25) or allows one
 * (2026-07-28's tasks extension), and the server declares tasks; the
 * callback is the same.
 *
 * # Safety
 * As for `mcp_server_add_tool`.
 */
mcp_result mcp_server_add_tool_json(const struct mcp_server *server,
                                    const char *tool_json,
                                    mcp_tool_callback callback,
                                    void *userdata);

/**
 * Removes a tool; while serving, clients get
 * `notifications/tools/list_changed`. `*removed` (if not NULL) tells
 * whether there was such a tool. Calls of it that are running finish.
 *
 * # Safety
 * `server` is NULL or a live server; `name` is NULL or NUL-terminated;
 * `removed` is NULL or points to a writable `bool`.
 */
mcp_result mcp_server_remove_tool(const struct mcp_server *server, const char *name, bool *removed);

/**
 * Registers a resource at a fixed `uri` (or replaces the one there), read by
 * `callback`. `name` is required; `description` and `mime_type` may be NULL.
 * While serving, clients get `notifications/resources/list_changed` (the
 * `resources` capability must have been declared, as for tools).
 *
 * # Safety
 * `server` is NULL or a live server; the strings are NULL or NUL-terminated;
 * `callback` is NULL or a function of the `mcp_resource_callback` type.
 */
mcp_result mcp_server_add_resource(const struct mcp_server *server,
                                   const char *uri,
                                   const char *name,
                                   const char *description,
                                   const char *mime_type,
                                   mcp_resource_callback callback,
                                   void *userdata);

/**
 * Removes the resource at `uri`; while serving, clients get
 * `notifications/resources/list_changed`. `*removed` (if not NULL) tells
 * whether there was one.
 *
 * # Safety
 * As for `mcp_server_remove_tool`.
 */
mcp_result mcp_server_remove_resource(const struct mcp_server *server,
                                      const char *uri,
                                      bool *removed);

/**
 * Registers a resource template (RFC 6570, e.g. `file:///logs/{date}`): a
 * `resources/read` of a URI that no fixed resource has and that matches the
 * template calls `callback` with the URI and the variables' values.
 * `name` is required; `description` and `mime_type` may be NULL. While
 * serving, clients get `notifications/resources/list_changed` (as for
 * resources).
 *
 * # Safety
 * As for `mcp_server_add_resource`.
 */
mcp_result mcp_server_add_resource_template(const struct mcp_server *server,
                                            const char *uri_template,
                                            const char *name,
                                            const char *description,
                                            const char *mime_type,
                                            mcp_resource_callback callback,
                                            void *userdata);

/**
 * Removes the resource template with `uri_template` (as registered); while
 * serving, clients get `notifications/resources/list_changed`. `*removed`
 * (if not NULL) tells whether there was one.
 *
 * # Safety
 * As for `mcp_server_remove_tool`.
 */
mcp_result mcp_server_remove_resource_template(const struct mcp_server *server,
                                               const char *uri_template,
                                               bool *removed);

/**
 * Registers a prompt (or replaces the one with the same name), rendered by
 * `callback`. `description` may be NULL; `arguments_json` declares its
 * arguments, `[{"name":"topic","description":"…","required":true}]`, or is
 * NULL for none. While serving, clients get
 * `notifications/prompts/list_changed` (the `prompts` capability must have
 * been declared, as for tools).
 *
 * # Safety
 * `server` is NULL or a live server; the strings are NULL or NUL-terminated;
 * `callback` is NULL or a function of the `mcp_prompt_callback` type.
 */
mcp_result mcp_server_add_prompt(const struct mcp_server *server,
                                 const char *name,
                                 const char *description,
                                 const char *arguments_json,
                                 mcp_prompt_callback callback,
                                 void *userdata);

/**
 * Removes a prompt; while serving, clients get
 * `notifications/prompts/list_changed`. `*removed` (if not NULL) tells
 * whether there was one.
 *
 * # Safety
 * As for `mcp_server_remove_tool`.
 */
mcp_result mcp_server_remove_prompt(const struct mcp_server *server,
                                    const char *name,
                                    bool *removed);

/**
 * Sends `notifications/resources/updated` for `uri` to every client that
 * subscribed to it; `*notified` (if not NULL) receives how many were told.
 * Callable from any thread, including from callbacks.
 *
 * # Safety
 * `server` is NULL or a live server; `uri` is NULL or NUL-terminated;
 * `notified` is NULL or points to a writable `size_t`.
 */
mcp_result mcp_server_notify_resource_updated(const struct mcp_server *server,
                                              const char *uri,
                                              size_t *notified);

/**
 * Serves one client over this process's stdin and stdout, blocking the
 * calling thread until the client closes the connection (`MCP_OK`) or
 * `mcp_server_stop` is called from another thread or a callback (`MCP_OK`),
 * or one of its callbacks frees the server (`MCP_OK`, once that callback's
 * answer is written; the server is gone then: do not free it again).
 * Nothing else may write to stdout meanwhile (log to stderr).
 *
 * # Safety
 * `server` is NULL or a live server.
 */
mcp_result mcp_server_serve_stdio(const struct mcp_server *server);

/**
 * Starts serving over Streamable HTTP at `address` (`"127.0.0.1:8080"`, or
 * port 0 for any free port) with the endpoint at `/mcp` and the default
 * options, and returns at once; `*port_out` (if not NULL) receives the bound
 * port. Only `Host`/`Origin` headers naming a loopback address are accepted
 * (DNS-rebinding protection), so bind to a loopback address; for other
 * options use `mcp_server_start_http`.
 *
 * # Safety
 * `server` is NULL or a live server; `address` is NULL or NUL-terminated;
 * `port_out` is NULL or points to a writable `uint16_t`.
 */
mcp_result mcp_server_serve_http(const struct mcp_server *server,
                                 const char *address,
                                 uint16_t *port_out);

/**
 * Starts serving over Streamable HTTP with the endpoint at `/mcp`, as
 * `options` say (NULL: the defaults, see `mcp_http_options`), and returns
 * at once; `*port_out` (if not NULL) receives the bound port. Requests are
 * served on the server's runtime until `mcp_server_stop` or
 * `mcp_server_free` (then the listener closes, sessions end once their
 * requests in progress are answered, and `mcp_server_wait` returns). May be
 * called several times (several listeners).
 *
 * # Safety
 * `server` is NULL or a live server; `options` is NULL or live options;
 * `port_out` is NULL or points to a writable `uint16_t`.
 */
mcp_result mcp_server_start_http(const struct mcp_server *server,
                                 const struct mcp_http_options *options,
                                 uint16_t *port_out);

/**
 * Waits until the server has stopped: `mcp_server_stop` was called (from
 * any thread or callback) and everything it was serving has finished —
 * `mcp_server_serve_stdio` returned, HTTP sessions ended and their requests
 * in progress were answered. `timeout_ms` bounds the wait (negative: no
 * bound); `MCP_ERR_TIMEOUT` if the server is still serving then. The server
 * must be freed afterwards as usual: not from another thread meanwhile,
 * except from inside one of its callbacks (then this returns `MCP_OK` once
 * the server has stopped; it is gone: do not free it again).
 *
 * # Safety
 * `server` is NULL or a live server.
 */
mcp_result mcp_server_wait(const struct mcp_server *server, int64_t timeout_ms);

/**
 * Stops serving and returns at once: `mcp_server_serve_stdio` ends its
 * session and returns, HTTP listeners close, and the sessions open over
 * HTTP end (requests in progress are answered first; a client's next
 * request fails). `mcp_server_wait` returns once all that has finished.
 * Callable from any thread, including from this server's callbacks; a
 * stopped server cannot serve again. Stopping twice is fine.
 *
 * # Safety
 * `server` is NULL or a live server.
 */
mcp_result mcp_server_stop(const struct mcp_server *server);

/**
 * Serves the skills under `dir` (the skills extension,
 * `io.modelcontextprotocol/skills`), in place of those served until now:
 * every folder holding a `SKILL.md` is a skill named after the folder, with
 * all the files under it. Clients list them with `skills/list`, get one
 * with `skills/get` and read its files as resources; with
 * `directory_read`, folders are listed with `resources/directory/read`.
 * Before or while serving; while serving, clients are told that the
 * resource list changed (the `resources` capability must have been
 * declared when the server was first served, otherwise
 * `MCP_ERR_CAPABILITY`). A skill that breaks the extension's rules (its
 * frontmatter, name, limits), or a file or folder that cannot be read, is
 * `MCP_ERR_INVALID_ARGUMENT` naming it, and nothing changes.
 *
 * # Safety
 * `server` is NULL or a live server; `dir` is NULL or NUL-terminated.
 */
mcp_result mcp_server_set_skills_dir(const struct mcp_server *server,
                                     const char *dir,
                                     bool directory_read);

/**
 * Copies `text` into a new string owned by the caller, to be freed with
 * `mcp_string_free`. This is how a callback hands its result to the library
 * (`*result_json = mcp_string_new(json)`). Returns NULL if `text` is NULL or
 * memory runs out.
 *
 * Strings made by the library, and those given to it, are `malloc`
 * allocations: `mcp_string_free` is `free`, and a callback may equally hand
 * over a string from `strdup` or `malloc`.
 *
 * # Safety
 * `text` is NULL or a NUL-terminated string.
 */
char *mcp_string_new(const char *text);

/**
 * Frees a string returned by the library (or made with `mcp_string_new`).
 * NULL is a no-op.
 *
 * # Safety
 * `text` is NULL or such a string that has not been freed yet, and is not
 * used afterwards.
 */
void mcp_string_free(char *text);

/**
 * Writes `text` as a JSON string literal, quoted and escaped (`a"b` becomes
 * `"a\"b"`), to `*json_out`, to be freed with `mcp_string_free`. Handy for
 * building JSON text in C.
 *
 * # Safety
 * `text` is NULL or a NUL-terminated string; `json_out` is NULL or points to
 * writable memory for one `char *`.
 */
mcp_result mcp_json_quote(const char *text, char **json_out);

/**
 * The library's version, such as `"0.1.0"` (a static string).
 */
const char *mcp_version(void);

/**
 * The W3C `traceparent` of the request the callback handles
 * (`"00-<trace id>-<caller's span id>-<flags>"`), or NULL when it carried
 * none (or a malformed one). The string is the library's, valid until the
 * callback returns.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL, which
 * gives NULL).
 */
const char *mcp_context_traceparent(const struct mcp_context *context);

/**
 * The W3C `tracestate` of the request the callback handles, or NULL when it
 * carried none (or no valid `traceparent`). The string is the library's,
 * valid until the callback returns.
 *
 * # Safety
 * `context` is the context given to the running callback (or NULL, which
 * gives NULL).
 */
const char *mcp_context_tracestate(const struct mcp_context *context);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* MCP_H */
