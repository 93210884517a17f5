/*
 * test_stdio, continued (see test_stdio.c): the client's callbacks, and the
 * tests of what the server sends them: its requests to the client
 * (sampling, elicitation, roots) and notifications (log messages, list
 * changes, resource updates), callbacks calling back into the library.
 */
#include "test_stdio.h"

/* What the callbacks saw (its members: test_stdio.h). */
struct stdio_seen seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void copy_locked(char *dst, size_t size, const char *src) {
    pthread_mutex_lock(&seen.lock);
    snprintf(dst, size, "%s", src);
    pthread_mutex_unlock(&seen.lock);
}

static int contains_locked(const char *text, const char *needle) {
    pthread_mutex_lock(&seen.lock);
    int found = strstr(text, needle) != NULL;
    pthread_mutex_unlock(&seen.lock);
    return found;
}

void on_notification(void *userdata, const char *method, const char *params) {
    CHECK(userdata == &seen);
    atomic_fetch_add(&seen.notifications, 1);
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED) == 0) {
        /* Call back into the library from the notification callback. */
        char *json = NULL;
        mcp_result r = mcp_client_list_tools(seen.client, NULL, &json);
        if (r == MCP_OK) {
            atomic_store(&seen.dynamic_listed, strstr(json, "\"dynamic\"") ? 1 : 2);
            mcp_string_free(json);
        } else {
            atomic_store(&seen.dynamic_listed, 3);
        }
        atomic_fetch_add(&seen.tools_changed, 1);
    } else if (strcmp(method, MCP_METHOD_NOTIFICATIONS_MESSAGE) == 0) {
        copy_locked(seen.last_log, sizeof seen.last_log, params);
        atomic_fetch_add(&seen.logs, 1);
    } else if (strcmp(method, MCP_METHOD_NOTIFICATIONS_RESOURCES_UPDATED) == 0) {
        copy_locked(seen.last_updated, sizeof seen.last_updated, params);
        atomic_fetch_add(&seen.resources_updated, 1);
    }
}

void on_stderr(void *userdata, const char *line) {
    (void)userdata;
    if (strstr(line, "fixture_server: ready")) atomic_fetch_add(&seen.stderr_ready, 1);
}

mcp_result on_sampling(void *userdata, const char *params, char **result) {
    (void)userdata;
    atomic_fetch_add(&seen.sampling_calls, 1);
    copy_locked(seen.last_sampling, sizeof seen.last_sampling, params);
    switch (atomic_load(&seen.sampling_mode)) {
    case 0:
        /* Re-entrant: a request on the same client from its own callback. */
        atomic_store(&seen.sampling_ping, (int)mcp_client_ping(seen.client, NULL) + 1);
        *result = mcp_string_new("{\"role\":\"assistant\",\"model\":\"c-test\",\"content\":"
                                 "{\"type\":\"text\",\"text\":\"sampled by C\"}}");
        return MCP_OK;
    case 1:
        *result = mcp_string_new("{\"code\":-1,\"message\":\"User rejected sampling\"}");
        return MCP_ERR_RPC;
    case 2:
        return MCP_ERR_CALLBACK;
    default:
        *result = mcp_string_new("{\"role\":\"assistant\"}"); /* not a CreateMessageResult */
        return MCP_OK;
    }
}

mcp_result on_elicitation(void *userdata, const char *params, char **result) {
    (void)userdata;
    atomic_fetch_add(&seen.elicitation_calls, 1);
    if (!strstr(params, "Your name?")) return MCP_ERR_CALLBACK;
    *result = mcp_string_new("{\"action\":\"accept\",\"content\":{\"name\":\"C tester\"}}");
    return MCP_OK;
}

void test_logging(void) {
    CHECK_OK(mcp_client_set_logging_level(client, "debug", NULL));
    int before = atomic_load(&seen.logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&seen.logs, before + 2, 5000));
    CHECK(contains_locked(seen.last_log, "\"data\":\"warning message\""));
    CHECK(contains_locked(seen.last_log, "\"logger\":\"fixture\""));
    CHECK(contains_locked(seen.last_log, "\"level\":\"warning\""));
    /* Above the level only. */
    CHECK_OK(mcp_client_set_logging_level(client, "warning", NULL));
    before = atomic_load(&seen.logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&seen.logs, before + 1, 5000));
    sleep_ms(100);
    CHECK(atomic_load(&seen.logs) == before + 1);
    CHECK_RC(mcp_client_set_logging_level(client, "loud", NULL), MCP_ERR_INVALID_ARGUMENT);
}

void test_sampling(void) {
    atomic_store(&seen.sampling_mode, 0);
    CHECK_CALL(client, "sample", NULL, "sampled by C");
    CHECK(atomic_load(&seen.sampling_calls) >= 1);
    CHECK(contains_locked(seen.last_sampling, "hello from the fixture"));
    CHECK(atomic_load(&seen.sampling_ping) == MCP_OK + 1);
    if (strcmp(revision, "2025-11-25") == 0) {
        /* The callback's JSON-RPC error reaches the server as given. */
        atomic_store(&seen.sampling_mode, 1);
        CHECK_CALL(client, "sample", NULL, "MCP_ERR_RPC -1: ");
        CHECK_CALL(client, "sample", NULL, "User rejected sampling");
        /* A failure without details: internal error. */
        atomic_store(&seen.sampling_mode, 2);
        CHECK_CALL(client, "sample", NULL, "-32603");
        /* A result that does not decode. */
        atomic_store(&seen.sampling_mode, 3);
        CHECK_CALL(client, "sample", NULL, "does not decode");
    } else {
        /* Input-required rounds have no way to send the server an error:
         * the client cannot give the input, so its own call fails, saying
         * why. */
        static const struct {
            int mode;
            const char *why;
        } failures[] = {{1, "User rejected sampling"},
                        {2, "MCP_ERR_CALLBACK"},
                        {3, "does not decode"}};
        for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
            atomic_store(&seen.sampling_mode, failures[i].mode);
            char *json = NULL;
            CHECK_RC(mcp_client_call_tool(client, "sample", NULL, NULL, &json),
                     MCP_ERR_PROTOCOL);
            CHECK_CONTAINS(mcp_last_error_message(), "sampling/createMessage");
            CHECK_CONTAINS(mcp_last_error_message(), failures[i].why);
            CHECK(json == NULL);
        }
        CHECK_OK(mcp_client_ping(client, NULL));
    }
    atomic_store(&seen.sampling_mode, 0);
}

void test_elicitation(void) {
    CHECK_CALL(client, "elicit", NULL, "accept");
    CHECK_CALL(client, "elicit", NULL, "C tester");
    CHECK(atomic_load(&seen.elicitation_calls) >= 2);
}

void test_roots(void) {
    CHECK_CALL(client, "roots", NULL, "file:///initial");
    CHECK_OK(mcp_client_set_roots(client, "[{\"uri\":\"file:///changed\"}]"));
    CHECK_CALL(client, "roots", NULL, "file:///changed");
    CHECK_RC(mcp_client_set_roots(client, "nope"), MCP_ERR_INVALID_JSON);
}

void test_client_info(void) {
    CHECK_CALL(client, "client_info", NULL, "c-test-client");
    CHECK_CALL(client, "client_info", NULL, "sampling");
    CHECK_CALL(client, "client_info", NULL, "elicitation");
}

void test_list_changed_reentrant(void) {
    int before = atomic_load(&seen.tools_changed);
    CHECK_CALL(client, "add_tool", NULL, "added");
    CHECK(wait_until(&seen.tools_changed, before + 1, 5000));
    /* The notification callback listed the tools itself and saw the new one. */
    CHECK(atomic_load(&seen.dynamic_listed) == 1);
    CHECK_CALL(client, "dynamic", NULL, "dynamic tool");
    CHECK_CALL(client, "remove_tool", NULL, "removed");
    CHECK(wait_until(&seen.tools_changed, before + 2, 5000));
    CHECK(atomic_load(&seen.dynamic_listed) == 2);
    CHECK_CALL(client, "remove_tool", NULL, "absent");
    char *json = NULL;
    CHECK_RC(mcp_client_call_tool(client, "dynamic", NULL, NULL, &json), MCP_ERR_RPC);
}

void test_subscriptions(void) {
    CHECK_OK(mcp_client_subscribe_resource(client, "test://counter", NULL));
    int before = atomic_load(&seen.resources_updated);
    CHECK_CALL(client, "touch", NULL, "notified 1");
    CHECK(wait_until(&seen.resources_updated, before + 1, 5000));
    CHECK(contains_locked(seen.last_updated, "\"uri\":\"test://counter\""));
    char *json = NULL;
    CHECK_OK(mcp_client_read_resource(client, "test://counter", NULL, &json));
    CHECK_CONTAINS(json, "\"text\":\"1\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_unsubscribe_resource(client, "test://counter", NULL));
    CHECK_CALL(client, "touch", NULL, "notified 0");
}
