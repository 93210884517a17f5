#define _POSIX_C_SOURCE 200809L

#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

atomic_int fixture_cancellations;
atomic_int fixture_server_freed;
atomic_int fixture_running;
atomic_int fixture_max_running;
static atomic_int counter;

double json_number(const char *json, const char *key, double fallback) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(json, pattern);
    return at ? strtod(at + strlen(pattern), NULL) : fallback;
}

char *json_string_literal(const char *json, const char *key) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return NULL;
    start += strlen(pattern) - 1;
    const char *end = start + 1;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    if (*end != '"') return NULL;
    size_t len = (size_t)(end - start) + 1;
    char *literal = malloc(len + 1);
    if (!literal) return NULL;
    memcpy(literal, start, len);
    literal[len] = '\0';
    return literal;
}

/* Sets *out to a CallToolResult with one text block; `text_literal` is a
 * JSON string literal (quoted). */
static mcp_result text_result(char **out, const char *text_literal) {
    size_t size = strlen(text_literal) + 64;
    char *json = malloc(size);
    if (!json) return MCP_ERR_CALLBACK;
    snprintf(json, size, "{\"content\":[{\"type\":\"text\",\"text\":%s}]}", text_literal);
    *out = json; /* malloc'd strings may be handed over: mcp_string_free is free */
    return MCP_OK;
}

/* As text_result, for plain text (quoted here). */
static mcp_result plain_result(char **out, const char *text) {
    char *literal = NULL;
    if (mcp_json_quote(text, &literal) != MCP_OK) return MCP_ERR_CALLBACK;
    mcp_result r = text_result(out, literal);
    mcp_string_free(literal);
    return r;
}

static void enter(void) {
    int now = atomic_fetch_add(&fixture_running, 1) + 1;
    int max = atomic_load(&fixture_max_running);
    while (now > max && !atomic_compare_exchange_weak(&fixture_max_running, &max, now)) {
    }
}

static void leave(void) { atomic_fetch_sub(&fixture_running, 1); }

static mcp_result echo(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx;
    enter();
    char *message = json_string_literal(args, "message");
    mcp_result r = message ? text_result(out, message) : MCP_ERR_CALLBACK;
    free(message);
    leave();
    return r;
}

static mcp_result add(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx;
    char text[64];
    snprintf(text, sizeof text, "%g", json_number(args, "a", 0) + json_number(args, "b", 0));
    return plain_result(out, text);
}

static mcp_result fail(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("deliberate failure");
    return MCP_ERR_CALLBACK;
}

static mcp_result fail_silently(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args, (void)out;
    return MCP_ERR_CALLBACK;
}

static mcp_result bad_json(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("{not json");
    return MCP_OK;
}

static mcp_result no_result(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args, (void)out;
    return MCP_OK;
}

static mcp_result progress(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    for (int i = 0; i < 3; i++) {
        char message[32];
        snprintf(message, sizeof message, "step %d", i);
        if (mcp_context_progress(cx, i, 3, message) != MCP_OK) return MCP_ERR_CALLBACK;
    }
    if (mcp_context_progress(cx, 3, NAN, NULL) != MCP_OK) return MCP_ERR_CALLBACK;
    return plain_result(out, "done");
}

static mcp_result log_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    if (mcp_context_log(cx, "debug", NULL, "debug message") != MCP_OK) return MCP_ERR_CALLBACK;
    if (mcp_context_log(cx, "warning", "fixture", "warning message") != MCP_OK)
        return MCP_ERR_CALLBACK;
    /* Errors of the context functions: */
    if (mcp_context_log(cx, "loud", NULL, "x") != MCP_ERR_INVALID_ARGUMENT) return MCP_ERR_CALLBACK;
    if (mcp_context_progress(cx, NAN, 1, NULL) != MCP_ERR_INVALID_ARGUMENT) return MCP_ERR_CALLBACK;
    return plain_result(out, "logged");
}

/* Calls `ask` and returns its result JSON, quoted, as the tool's text; a
 * failure becomes an isError result naming the code and message. */
static mcp_result relay(mcp_result r, char *json, char **out) {
    if (r != MCP_OK) {
        char message[1024];
        int64_t code = 0;
        int rpc = mcp_last_error_rpc_code(&code);
        snprintf(message, sizeof message, "%s%s%lld: %s", mcp_result_name(r), rpc ? " " : "",
                 rpc ? (long long)code : 0LL, mcp_last_error_message());
        *out = mcp_string_new(message);
        return MCP_ERR_CALLBACK;
    }
    mcp_result result = plain_result(out, json);
    mcp_string_free(json);
    return result;
}

static mcp_result sample(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    char *json = NULL;
    mcp_result r = mcp_context_create_message(
        cx,
        "{\"maxTokens\":10,\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
        "\"text\":\"hello from the fixture\"}}]}",
        &json);
    return relay(r, json, out);
}

static mcp_result elicit(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    char *json = NULL;
    mcp_result r = mcp_context_elicit(
        cx,
        "{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":"
        "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}",
        &json);
    return relay(r, json, out);
}

static mcp_result roots(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    char *json = NULL;
    mcp_result r = mcp_context_list_roots(cx, &json);
    return relay(r, json, out);
}

static mcp_result client_info(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    char *json = NULL;
    mcp_result r = mcp_context_client_info(cx, &json);
    return relay(r, json, out);
}

/* The trace context its request carried: "traceparent=… tracestate=…"
 * ("none" for either when absent). */
static mcp_result trace_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)args;
    const char *parent = mcp_context_traceparent(cx);
    const char *state = mcp_context_tracestate(cx);
    char text[1024];
    snprintf(text, sizeof text, "traceparent=%s tracestate=%s", parent ? parent : "none",
             state ? state : "none");
    return plain_result(out, text);
}

static mcp_result sleep_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud;
    enter();
    long ms = (long)json_number(args, "ms", 0);
    struct timespec tick = {0, 10 * 1000000L};
    for (long waited = 0; waited < ms; waited += 10) {
        if (mcp_context_is_cancelled(cx)) {
            atomic_fetch_add(&fixture_cancellations, 1);
            leave();
            return plain_result(out, "cancelled");
        }
        nanosleep(&tick, NULL);
    }
    leave();
    return plain_result(out, "slept");
}

static mcp_result pid(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)getpid());
    return plain_result(out, text);
}

static mcp_result dynamic(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    return plain_result(out, "dynamic tool");
}

static mcp_result add_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)cx, (void)args;
    mcp_server *server = ud;
    mcp_result r = mcp_server_add_tool(server, "dynamic", "Added at run time",
                                       "{\"type\":\"object\"}", dynamic, NULL);
    return r == MCP_OK ? plain_result(out, "added") : relay(r, NULL, out);
}

static mcp_result remove_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)cx, (void)args;
    bool removed = false;
    mcp_result r = mcp_server_remove_tool(ud, "dynamic", &removed);
    if (r != MCP_OK) return relay(r, NULL, out);
    return plain_result(out, removed ? "removed" : "absent");
}

static mcp_result touch(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)cx, (void)args;
    atomic_fetch_add(&counter, 1);
    size_t notified = 99;
    mcp_result r = mcp_server_notify_resource_updated(ud, "test://counter", &notified);
    if (r != MCP_OK) return relay(r, NULL, out);
    char text[32];
    snprintf(text, sizeof text, "notified %zu", notified);
    return plain_result(out, text);
}

static mcp_result stop(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)cx, (void)args;
    mcp_result r = mcp_server_stop(ud);
    return r == MCP_OK ? plain_result(out, "stopping") : relay(r, NULL, out);
}

/* Answers with a text over the 4 MiB message limit. */
static mcp_result big(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    size_t size = (5u << 20) + 64;
    char *json = malloc(size);
    if (!json) return MCP_ERR_CALLBACK;
    const char *head = "{\"content\":[{\"type\":\"text\",\"text\":\"";
    size_t at = strlen(head);
    memcpy(json, head, at);
    memset(json + at, 'x', 5u << 20);
    at += 5u << 20;
    strcpy(json + at, "\"}]}");
    *out = json;
    return MCP_OK;
}

/* Frees the server from inside its own callback, then answers. */
static mcp_result free_server(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)cx, (void)args;
    atomic_store(&fixture_server_freed, 1);
    mcp_server_free(ud);
    return plain_result(out, "freed, and still answered");
}

/* Answers with structured content matching its output schema. */
static mcp_result structured(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx;
    double city_len = json_number(args, "n", 1);
    char json[256];
    snprintf(json, sizeof json,
             "{\"content\":[{\"type\":\"text\",\"text\":\"21.5\"}],"
             "\"structuredContent\":{\"celsius\":21.5,\"n\":%d}}",
             (int)city_len);
    *out = mcp_string_new(json);
    return MCP_OK;
}

/* Refuses the call with a JSON-RPC error rather than a tool error. */
static mcp_result rpc_error(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("{\"code\":-32001,\"message\":\"not now\",\"data\":{\"retry\":true}}");
    return MCP_ERR_RPC;
}

static mcp_result static_resource(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx;
    if (!strstr(params, "\"uri\":\"test://static\"")) return MCP_ERR_CALLBACK;
    *out = mcp_string_new("{\"contents\":[{\"uri\":\"test://static\",\"mimeType\":\"text/plain\","
                          "\"text\":\"static text\"}]}");
    return MCP_OK;
}

static mcp_result counter_resource(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx, (void)params;
    char json[128];
    snprintf(json, sizeof json, "{\"contents\":[{\"uri\":\"test://counter\",\"text\":\"%d\"}]}",
             atomic_load(&counter));
    *out = mcp_string_new(json);
    return MCP_OK;
}

static mcp_result missing_resource(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx, (void)params;
    *out = mcp_string_new(
        "{\"code\":-32002,\"message\":\"gone\",\"data\":{\"uri\":\"test://gone\"}}");
    return MCP_ERR_RPC;
}

static mcp_result item_template(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx;
    /* {"uri":"test://items/42","variables":{"id":"42"}} */
    char *uri = json_string_literal(params, "uri");
    char *id = json_string_literal(params, "id");
    mcp_result r = MCP_ERR_CALLBACK;
    if (uri && id) {
        char json[512];
        snprintf(json, sizeof json, "{\"contents\":[{\"uri\":%s,\"text\":\"item %.*s\"}]}", uri,
                 (int)strlen(id) - 2, id + 1);
        *out = mcp_string_new(json);
        r = MCP_OK;
    }
    free(uri);
    free(id);
    return r;
}

static mcp_result greet_prompt(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx;
    char *name = json_string_literal(args, "name");
    if (!name) return MCP_ERR_CALLBACK;
    char json[512];
    snprintf(json, sizeof json,
             "{\"description\":\"A greeting\",\"messages\":[{\"role\":\"user\",\"content\":"
             "{\"type\":\"text\",\"text\":\"Hello, %.*s\"}}]}",
             (int)strlen(name) - 2, name + 1);
    free(name);
    *out = mcp_string_new(json);
    return MCP_OK;
}

static mcp_result failing_prompt(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("the prompt broke");
    return MCP_ERR_CALLBACK;
}

/* Completes the "greet" prompt's "name" from a fixed list, by prefix. */
static mcp_result complete_names(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx;
    if (!strstr(params, "\"name\":\"greet\"")) {
        *out = mcp_string_new("{\"values\":[]}");
        return MCP_OK;
    }
    char *typed = json_string_literal(params, "value"); /* "\"Al\"" */
    const char *names[] = {"Alice", "Alan", "Bob"};
    char json[256] = "{\"values\":[";
    size_t prefix = typed ? strlen(typed) - 2 : 0;
    int first = 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (typed && strncmp(names[i], typed + 1, prefix) != 0) continue;
        strcat(json, first ? "\"" : ",\"");
        strcat(json, names[i]);
        strcat(json, "\"");
        first = 0;
    }
    strcat(json, "],\"hasMore\":false}");
    free(typed);
    *out = mcp_string_new(json);
    return MCP_OK;
}

#define OBJECT "{\"type\":\"object\"}"

mcp_server *fixture_server_new(void) {
    mcp_server *server = NULL;
    mcp_result r = mcp_server_new("c-fixture", "0.1.0", &server);
    if (r != MCP_OK) {
        fprintf(stderr, "fixture: mcp_server_new: %s\n", mcp_last_error_message());
        return NULL;
    }
    r = mcp_server_set_instructions(server, "Fixture server for the C tests.");
    struct {
        const char *name, *schema;
        mcp_tool_callback callback;
    } tools[] = {
        {"echo",
         "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},"
         "\"required\":[\"message\"]}",
         echo},
        {"add",
         "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":"
         "\"number\"}},\"required\":[\"a\",\"b\"]}",
         add},
        {"fail", OBJECT, fail},
        {"fail_silently", OBJECT, fail_silently},
        {"bad_json", OBJECT, bad_json},
        {"no_result", OBJECT, no_result},
        {"progress", OBJECT, progress},
        {"log", OBJECT, log_tool},
        {"sample", OBJECT, sample},
        {"elicit", OBJECT, elicit},
        {"roots", OBJECT, roots},
        {"client_info", OBJECT, client_info},
        {"trace", OBJECT, trace_tool},
        {"sleep", "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}}}",
         sleep_tool},
        {"pid", OBJECT, pid},
        {"add_tool", OBJECT, add_tool},
        {"remove_tool", OBJECT, remove_tool},
        {"touch", OBJECT, touch},
        {"stop", OBJECT, stop},
        {"big", OBJECT, big},
        {"free_server", OBJECT, free_server},
    };
    for (size_t i = 0; r == MCP_OK && i < sizeof tools / sizeof tools[0]; i++)
        r = mcp_server_add_tool(server, tools[i].name, "A fixture tool", tools[i].schema,
                                tools[i].callback, server);
    if (r == MCP_OK)
        r = mcp_server_add_tool_json(
            server,
            "{\"name\":\"structured\",\"title\":\"Structured weather\","
            "\"description\":\"Answers with structured content\","
            "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}},"
            "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"celsius\":{\"type\":"
            "\"number\"},\"n\":{\"type\":\"integer\"}},\"required\":[\"celsius\"]},"
            "\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false},"
            "\"icons\":[{\"src\":\"https://example.com/sun.png\",\"mimeType\":\"image/png\"}],"
            "\"_meta\":{\"example.com/origin\":\"fixture\"}}",
            structured, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_tool_json(
            server, "{\"name\":\"rpc_error\",\"inputSchema\":{\"type\":\"object\"}}", rpc_error,
            NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource(server, "test://static", "static", "A fixed text",
                                    "text/plain", static_resource, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource(server, "test://counter", "counter", NULL, NULL,
                                    counter_resource, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource(server, "test://gone", "gone", NULL, NULL, missing_resource,
                                    NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource_template(server, "test://items/{id}", "items", "Items by id",
                                             "text/plain", item_template, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_prompt(server, "greet", "Greets someone",
                                  "[{\"name\":\"name\",\"description\":\"Who\",\"required\":true}]",
                                  greet_prompt, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_prompt(server, "broken", NULL, NULL, failing_prompt, NULL);
    if (r == MCP_OK) r = mcp_server_set_completion(server, complete_names, NULL);
    if (r != MCP_OK) {
        fprintf(stderr, "fixture: registering: %s: %s\n", mcp_result_name(r),
                mcp_last_error_message());
        mcp_server_free(server);
        return NULL;
    }
    return server;
}
