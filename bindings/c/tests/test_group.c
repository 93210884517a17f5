/*
 * mcp_group: two `mcp serve everything` servers and one that does not exist,
 * from an mcpServers configuration. Merged tools named SERVER__TOOL, calls
 * routed, the failed server reported and named by calls to it, one server
 * killed (SIGKILL of the PID its wrapper recorded) and started again by the
 * next call, invalid configurations refused naming the entry.
 * With FIXTURE_SERVER, mcp_group_connect_file too: a configuration file
 * naming the C fixture server.
 * Usage: test_group MCP_BINARY [FIXTURE_SERVER]
 */
#include "harness.h"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

static const char *mcp_binary;
static char pid_file[256];

/* The PIDs the wrapper wrote, one per start; returns how many. */
static int read_pids(pid_t *pids, int max) {
    FILE *f = fopen(pid_file, "r");
    if (!f) return 0;
    int n = 0;
    long pid;
    while (n < max && fscanf(f, "%ld", &pid) == 1) pids[n++] = (pid_t)pid;
    fclose(f);
    return n;
}

static mcp_group *connect_group(void) {
    char config[2048];
    snprintf(config, sizeof config,
             "{\"mcpServers\": {"
             "\"ours\": {\"command\": \"%s\", \"args\": [\"serve\", \"everything\"]},"
             "\"again\": {\"command\": \"/bin/sh\", \"args\": [\"-c\", "
             "\"echo $$ >> \\\"$0\\\"; exec \\\"$@\\\"\", \"%s\", \"%s\", \"serve\", "
             "\"everything\"]},"
             "\"down\": {\"command\": \"/nonexistent/mcp-server\"}}}",
             mcp_binary, pid_file, mcp_binary);
    mcp_group *group = NULL;
    CHECK_OK(mcp_group_connect(config, "c-group-test", "1.0.0", &group));
    return group;
}

static void test_group_of_servers(void) {
    mcp_group *group = connect_group();
    if (!group) return;
    char *json = NULL;
    CHECK_OK(mcp_group_status(group, &json));
    CHECK_CONTAINS(json, "\"name\":\"ours\"");
    CHECK_CONTAINS(json, "\"state\":\"failed\"");
    CHECK_CONTAINS(json, "/nonexistent/mcp-server");
    mcp_string_free(json);

    CHECK_OK(mcp_group_list_tools(group, &json));
    CHECK_CONTAINS(json, "\"name\":\"ours__add_numbers\"");
    CHECK_CONTAINS(json, "\"name\":\"again__add_numbers\"");
    mcp_string_free(json);

    CHECK_OK(mcp_group_call_tool(group, "ours__add_numbers", "{\"a\":2,\"b\":40}", &json));
    CHECK_CONTAINS(json, "\"text\":\"42\"");
    mcp_string_free(json);

    CHECK_RC(mcp_group_call_tool(group, "down__anything", NULL, &json), MCP_ERR_CLOSED);
    CHECK(json == NULL);
    CHECK_CONTAINS(mcp_last_error_message(), "server `down`");
    CHECK_RC(mcp_group_call_tool(group, "nobody__x", NULL, &json), MCP_ERR_INVALID_ARGUMENT);

    CHECK_OK(mcp_group_read_resource(group, "test://static-text", &json));
    CHECK_CONTAINS(json, "\"contents\"");
    mcp_string_free(json);

    /* The second server dies; the next call to it starts it again. */
    pid_t pids[4];
    CHECK(read_pids(pids, 4) == 1);
    if (read_pids(pids, 4) == 1) {
        kill(pids[0], SIGKILL);
        double deadline = now_ms() + 30000;
        for (;;) {
            CHECK_OK(mcp_group_status(group, &json));
            int gone = json && strstr(json, "\"state\":\"disconnected\"") != NULL;
            mcp_string_free(json);
            json = NULL;
            if (gone) break;
            if (now_ms() > deadline) {
                CHECK(!"the killed server was not reported disconnected");
                break;
            }
            sleep_ms(20);
        }
        CHECK_OK(mcp_group_call_tool(group, "again__add_numbers", "{\"a\":1,\"b\":2}", &json));
        CHECK_CONTAINS(json, "\"text\":\"3\"");
        mcp_string_free(json);
        CHECK(read_pids(pids, 4) == 2);
        CHECK_OK(mcp_group_status(group, &json));
        CHECK_CONTAINS(json, "\"connections\":2");
        mcp_string_free(json);
    }
    mcp_group_free(group);
}

static void test_bad_configs_and_arguments(void) {
    mcp_group *group = NULL;
    CHECK_RC(mcp_group_connect("{\"mcpServers\": {\"x\": {\"args\": []}}}", "t", "1", &group),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK(group == NULL);
    CHECK_CONTAINS(mcp_last_error_message(), "mcpServers.x: needs `command`");
    CHECK_RC(mcp_group_connect_file("/nonexistent/mcp.json", "t", "1", &group),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "/nonexistent/mcp.json");
    CHECK_RC(mcp_group_connect(NULL, "t", "1", &group), MCP_ERR_NULL_ARGUMENT);
    char *json = NULL;
    CHECK_RC(mcp_group_status(NULL, &json), MCP_ERR_NULL_ARGUMENT);
    mcp_group_free(NULL);
}

/* Makes a new directory `dir` (a mkdtemp template) and opens `path`, its
 * file mcp.json, for writing; NULL (and nothing left behind) if either
 * fails. */
static FILE *new_config_file(char *dir, char *path, size_t size) {
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, size, "%s/mcp.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) rmdir(dir);
    return f;
}

/* The status JSON is the same text, byte for byte, as `mcp servers list
 * --json` prints for the same file (one server that cannot start, so that
 * nothing in it varies between the two runs). */
static void test_status_is_the_cli_text(void) {
    char dir[] = "/tmp/mcp-test-status-XXXXXX";
    char path[256];
    FILE *f = new_config_file(dir, path, sizeof path);
    if (!f) return;
    fprintf(f, "{\"mcpServers\": {\"down\": {\"command\": \"/nonexistent/mcp-server\", "
               "\"args\": [\"--flag\"]}}}\n");
    fclose(f);

    mcp_group *group = NULL;
    char *json = NULL;
    CHECK_OK(mcp_group_connect_file(path, "c-group-status", "1.0.0", &group));
    if (group) {
        CHECK_OK(mcp_group_status(group, &json));
        mcp_group_free(group);
    }

    char command[1024];
    snprintf(command, sizeof command, "'%s' servers list --json --config '%s' 2>/dev/null",
             mcp_binary, path);
    static char printed[8192];
    size_t n = 0;
    FILE *cli = popen(command, "r");
    CHECK(cli != NULL);
    if (cli) {
        n = fread(printed, 1, sizeof printed - 1, cli);
        pclose(cli);
    }
    while (n > 0 && printed[n - 1] == '\n') n--;
    printed[n] = '\0';
    CHECK(json != NULL && strcmp(json, printed) == 0);
    if (json && strcmp(json, printed) != 0) {
        printf("  C:   %s\n  mcp: %s\n", json, printed);
    }
    CHECK_CONTAINS(json ? json : "", "\"target\":\"/nonexistent/mcp-server --flag\"");
    mcp_string_free(json);
    remove(path);
    rmdir(dir);
}

/* mcp_group_connect_file: an mcpServers file in a new directory naming the
 * C fixture server (with the sanitizer settings in its env). */
static const char *fixture;

static void test_connect_file(void) {
    char dir[] = "/tmp/mcp-test-group-XXXXXX";
    char path[256];
    FILE *f = new_config_file(dir, path, sizeof path);
    if (!f) return;
    fprintf(f, "{\n  \"mcpServers\": {\n    \"fixture\": {\n      \"command\": \"%s\",\n"
               "      \"env\": {",
            fixture);
    const char *const *env = sanitizer_env();
    for (int i = 0; env[i]; i++) {
        const char *equals = strchr(env[i], '=');
        fprintf(f, "%s\"%.*s\": \"%s\"", i ? ", " : "", (int)(equals - env[i]), env[i],
                equals + 1);
    }
    fprintf(f, "}\n    }\n  }\n}\n");
    fclose(f);
    mcp_group *group = NULL;
    CHECK_OK(mcp_group_connect_file(path, "c-group-file", "1.0.0", &group));
    char *json = NULL;
    if (group) {
        CHECK_OK(mcp_group_status(group, &json));
        CHECK_CONTAINS(json, "\"state\":\"connected\"");
        mcp_string_free(json);
        CHECK_OK(mcp_group_list_tools(group, &json));
        CHECK_CONTAINS(json, "\"name\":\"fixture__echo\"");
        CHECK_CONTAINS(json, "\"name\":\"fixture__add\"");
        mcp_string_free(json);
        CHECK_OK(mcp_group_call_tool(group, "fixture__add", "{\"a\":2,\"b\":3}", &json));
        CHECK_CONTAINS(json, "\"text\":\"5\"");
        mcp_string_free(json);
        mcp_group_free(group);
    }
    remove(path);
    rmdir(dir);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: test_group MCP_BINARY [FIXTURE_SERVER]\n");
        return 2;
    }
    mcp_binary = argv[1];
    snprintf(pid_file, sizeof pid_file, "/tmp/mcp-test-group-%ld.pids", (long)getpid());
    remove(pid_file);
    RUN(test_group_of_servers);
    RUN(test_bad_configs_and_arguments);
    RUN(test_status_is_the_cli_text);
    if (argc == 3) {
        fixture = argv[2];
        RUN(test_connect_file);
    }
    remove(pid_file);
    return finish();
}
