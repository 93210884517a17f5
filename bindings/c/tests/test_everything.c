/*
 * The C client against libmcp's own everything server (`mcp serve everything`,
 * the fixture server of the conformance suite) over stdio: the same checks
 * the Python SDK's interop client makes (tests/interop/python_client.py),
 * through the C API, at the revision PROTOCOL asks for (`auto` agrees on
 * 2026-07-28, whose server requests are input-required rounds that the same
 * sampling and elicitation callbacks answer; `2025-11-25` pins that one).
 * Usage: test_everything PROTOCOL COMMAND [ARG...]
 *   e.g. test_everything auto target/debug/mcp serve everything
 */
#include "harness.h"

#include <math.h>
#include <pthread.h>

static mcp_client *client;
/* The revision the client must agree on, and whether it has a handshake. */
static const char *expected_revision;
static bool legacy;
static atomic_int logs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[4096];

static void on_notification(void *userdata, const char *method, const char *params) {
    (void)userdata;
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_MESSAGE) != 0) return;
    pthread_mutex_lock(&lock);
    size_t used = strlen(log_text);
    snprintf(log_text + used, sizeof log_text - used, "%s\n", params);
    pthread_mutex_unlock(&lock);
    atomic_fetch_add(&logs, 1);
}

static mcp_result on_sampling(void *userdata, const char *params, char **result) {
    (void)userdata;
    if (!strstr(params, "\"maxTokens\":100") || !strstr(params, "Say hello"))
        return MCP_ERR_CALLBACK;
    *result = mcp_string_new("{\"role\":\"assistant\",\"model\":\"c-model\",\"stopReason\":"
                             "\"endTurn\",\"content\":{\"type\":\"text\",\"text\":"
                             "\"Hello from C\"}}");
    return MCP_OK;
}

static mcp_result on_elicitation(void *userdata, const char *params, char **result) {
    (void)userdata;
    if (!strstr(params, "Who are you?")) return MCP_ERR_CALLBACK;
    *result = mcp_string_new("{\"action\":\"accept\",\"content\":{\"username\":\"cuser\","
                             "\"email\":\"c@example.com\"}}");
    return MCP_OK;
}

#define CHECK_CALL(tool, args, needle)                                                  \
    do {                                                                                \
        char *check_json_ = NULL;                                                       \
        CHECK_OK(mcp_client_call_tool(client, (tool), (args), NULL, &check_json_));     \
        CHECK_CONTAINS(check_json_, (needle));                                          \
        mcp_string_free(check_json_);                                                   \
    } while (0)

static void test_initialize(void) {
    const char *revision = mcp_client_protocol_version(client);
    CHECK(revision != NULL && strcmp(revision, expected_revision) == 0);
    /* Static: the same pointer every time. */
    CHECK(mcp_client_protocol_version(client) == revision);
    char *json = NULL;
    CHECK_OK(mcp_client_server_info(client, &json));
    CHECK_CONTAINS(json, "\"name\":\"mcp-everything\"");
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"protocolVersion\":\"%s\"", expected_revision);
    CHECK_CONTAINS(json, quoted);
    CHECK_CONTAINS(json, "\"completions\":{}");
    mcp_string_free(json);
    /* 2026-07-28 has no ping. */
    if (legacy) CHECK_OK(mcp_client_ping(client, NULL));
}

static void test_tools(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_tools(client, NULL, &json));
    const char *names[] = {"add_numbers", "test_simple_text", "test_tool_with_progress",
                           "test_tool_with_logging", "test_sampling", "test_elicitation",
                           "json_schema_2020_12_tool"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"name\":\"%s\"", names[i]);
        CHECK_CONTAINS(json, quoted);
    }
    CHECK_CONTAINS(json, "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\"");
    mcp_string_free(json);
    CHECK_CALL("add_numbers", "{\"a\":2,\"b\":3}", "\"text\":\"5\"");
    CHECK_CALL("add_numbers", "{\"a\":1.5,\"b\":-4}", "\"text\":\"-2.5\"");
    CHECK_CALL("test_simple_text", NULL, "This is a simple text response for testing.");
    CHECK_CALL("test_image_content", "{}", "\"mimeType\":\"image/png\"");
    CHECK_CALL("test_audio_content", "{}", "\"mimeType\":\"audio/wav\"");
}

static void test_tool_errors(void) {
    CHECK_CALL("add_numbers", "{\"a\":\"two\"}", "\"isError\":true");
    CHECK_CALL("test_error_handling", "{}", "This tool intentionally returns an error for testing");
    char *json = NULL;
    CHECK_RC(mcp_client_call_tool(client, "no_such_tool", "{}", NULL, &json), MCP_ERR_RPC);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code) && code == -32602);
    CHECK_CONTAINS(mcp_last_error_message(), "no_such_tool");
}

static void test_resources(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_resources(client, NULL, &json));
    CHECK_CONTAINS(json, "test://static-text");
    CHECK_CONTAINS(json, "test://watched-resource");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_resource(client, "test://static-text", NULL, &json));
    CHECK_CONTAINS(json, "This is the content of the static text resource.");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_resource(client, "test://static-binary", NULL, &json));
    CHECK_CONTAINS(json, "\"blob\":\"iVBORw0KGgo");
    mcp_string_free(json);
    CHECK_OK(mcp_client_list_resource_templates(client, NULL, &json));
    CHECK_CONTAINS(json, "test://template/{id}/data");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_resource(client, "test://template/123/data", NULL, &json));
    CHECK_CONTAINS(json, "Data for ID: 123");
    mcp_string_free(json);
    /* 2026-07-28 has no resources/subscribe (subscriptions/listen instead). */
    if (!legacy) return;
    CHECK_OK(mcp_client_subscribe_resource(client, "test://watched-resource", NULL));
    CHECK_OK(mcp_client_unsubscribe_resource(client, "test://watched-resource", NULL));
}

static void test_prompts_and_completion(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_prompts(client, NULL, &json));
    CHECK_CONTAINS(json, "test_prompt_with_arguments");
    mcp_string_free(json);
    CHECK_OK(mcp_client_get_prompt(client, "test_prompt_with_arguments",
                                   "{\"arg1\":\"alpha\",\"arg2\":\"beta\"}", NULL, &json));
    CHECK_CONTAINS(json, "Prompt with arguments: arg1='alpha', arg2='beta'");
    mcp_string_free(json);
    CHECK_OK(mcp_client_request(client, MCP_METHOD_COMPLETION_COMPLETE,
                                "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
                                "\"test_prompt_with_arguments\"},\"argument\":{\"name\":"
                                "\"arg1\",\"value\":\"test\"}}",
                                NULL, &json));
    CHECK_CONTAINS(json, "\"values\":[\"testValue1\",\"testValue2\"]");
    mcp_string_free(json);
}

static double progress_values[8];
static atomic_int progress_calls;

static void on_progress(void *userdata, double progress, double total, const char *message) {
    (void)userdata, (void)message;
    int i = atomic_fetch_add(&progress_calls, 1);
    if (i < 8) progress_values[i] = progress;
    CHECK(total == 100);
}

static void test_progress(void) {
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.on_progress = on_progress;
    char *json = NULL;
    CHECK_OK(mcp_client_call_tool(client, "test_tool_with_progress", "{}", &options, &json));
    mcp_string_free(json);
    CHECK(atomic_load(&progress_calls) == 3);
    CHECK(progress_values[0] == 0 && progress_values[1] == 50 && progress_values[2] == 100);
}

static void test_logging(void) {
    CHECK_OK(mcp_client_set_logging_level(client, "debug", NULL));
    int before = atomic_load(&logs);
    CHECK_CALL("test_tool_with_logging", "{}", "Tool with logging executed successfully");
    CHECK(wait_until(&logs, before + 3, 5000));
    pthread_mutex_lock(&lock);
    CHECK_CONTAINS(log_text, "Tool execution started");
    CHECK_CONTAINS(log_text, "Tool execution completed");
    pthread_mutex_unlock(&lock);
}

static void test_sampling_and_elicitation(void) {
    CHECK_CALL("test_sampling", "{\"prompt\":\"Say hello\"}", "LLM response: Hello from C");
    CHECK_CALL("test_elicitation", "{\"message\":\"Who are you?\"}",
               "User response: action=accept");
    CHECK_CALL("test_elicitation", "{\"message\":\"Who are you?\"}", "cuser");
    /* Any request goes the revision's way too (under 2026-07-28 with
       per-request metadata, its input-required rounds answered). */
    char *json = NULL;
    CHECK_OK(mcp_client_request(client, MCP_METHOD_TOOLS_CALL,
                                "{\"name\":\"test_sampling\",\"arguments\":"
                                "{\"prompt\":\"Say hello\"}}",
                                NULL, &json));
    CHECK_CONTAINS(json, "LLM response: Hello from C");
    mcp_string_free(json);
}

/* The skills extension: the fixture catalog listed, one skill looked up,
   its SKILL.md and another file read and verified; a file the skill does not
   list and an unknown skill are clear errors. */
static void test_skills(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_skills(client, NULL, &json));
    CHECK_CONTAINS(json, "\"skills\":[");
    CHECK_CONTAINS(json, "skill://pdf-processing/SKILL.md");
    CHECK_CONTAINS(json, "skill://release-notes/SKILL.md");
    mcp_string_free(json);
    CHECK_OK(mcp_client_get_skill(client, "skill://pdf-processing/SKILL.md", NULL, &json));
    CHECK_CONTAINS(json, "\"name\":\"pdf-processing\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_load_skill(client, "skill://pdf-processing/SKILL.md", NULL, &json));
    CHECK_CONTAINS(json, "\"skillMd\":\"---\\nname: pdf-processing");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_skill_file(client, "skill://pdf-processing/SKILL.md",
                                        "skill://pdf-processing/references/FORMS.md", NULL,
                                        &json));
    CHECK_CONTAINS(json, "\"uri\":\"skill://pdf-processing/references/FORMS.md\",\"text\":");
    mcp_string_free(json);
    json = NULL;
    CHECK_RC(mcp_client_read_skill_file(client, "skill://pdf-processing/SKILL.md",
                                        "skill://pdf-processing/secret.txt", NULL, &json),
             MCP_ERR_PROTOCOL);
    CHECK(json == NULL);
    CHECK_CONTAINS(mcp_last_error_message(), "secret.txt");
    CHECK_RC(mcp_client_get_skill(client, "skill://no-such-skill/SKILL.md", NULL, &json),
             MCP_ERR_RPC);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code) && code == -32602);
    CHECK_RC(mcp_client_load_skill(client, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROTOCOL COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    const char *protocol = argv[1];
    expected_revision = strcmp(protocol, "auto") == 0 ? "2026-07-28" : protocol;
    legacy = strcmp(expected_revision, "2026-07-28") != 0;
    if (mcp_client_new("c-everything-test", "1", &client) != MCP_OK) return 1;
    /* Not connected yet: no revision. */
    if (mcp_client_protocol_version(client) != NULL) printf("FAIL revision before connect\n");
    if (mcp_client_set_protocol(client, protocol) != MCP_OK) {
        printf("FAIL mcp_client_set_protocol %s: %s\n", protocol, mcp_last_error_message());
        mcp_client_free(client);
        return 1;
    }
    mcp_client_set_timeout(client, 20000);
    mcp_client_on_notification(client, on_notification, NULL);
    mcp_client_on_sampling(client, on_sampling, NULL);
    mcp_client_on_elicitation(client, on_elicitation, NULL);
    if (mcp_client_connect_stdio(client, argv[2], (const char *const *)&argv[3], NULL) != MCP_OK) {
        printf("FAIL connect %s: %s\n", argv[2], mcp_last_error_message());
        mcp_client_free(client);
        return 1;
    }
    RUN(test_initialize);
    RUN(test_tools);
    RUN(test_tool_errors);
    RUN(test_resources);
    RUN(test_prompts_and_completion);
    RUN(test_progress);
    /* Under 2026-07-28 the log level goes with each request, not
       logging/setLevel. */
    if (legacy) RUN(test_logging);
    RUN(test_sampling_and_elicitation);
    RUN(test_skills);
    mcp_client_free(client);
    return finish();
}
