/*
 * What the files of the test_stdio program share: test_stdio.c (main, the
 * shared client and the tests of its calls), test_stdio_callbacks.c (the
 * client's callbacks and the tests of what the server sends them) and
 * test_stdio_lifecycle.c (tests with clients of their own). See test_stdio.c.
 */
#ifndef MCP_TEST_STDIO_H
#define MCP_TEST_STDIO_H

#include "harness.h"

#include <pthread.h>

/* In test_stdio.c. */
extern const char *fixture_path;
extern const char *revision;
extern mcp_client *client; /* the shared client of most tests */
mcp_client *connect_fixture(void);
char *call(mcp_client *client, const char *tool, const char *args);

#define CHECK_CALL(client, tool, args, needle)                                          \
    do {                                                                                \
        char *check_json_ = call((client), (tool), (args));                             \
        CHECK_CONTAINS(check_json_, (needle));                                          \
        mcp_string_free(check_json_);                                                   \
    } while (0)

/* In test_stdio_callbacks.c. */
/* What the callbacks saw. */
struct stdio_seen {
    mcp_client *client; /* the client the callbacks call back into */
    atomic_int notifications;
    atomic_int tools_changed;
    atomic_int resources_updated;
    atomic_int logs;
    atomic_int stderr_ready;
    atomic_int dynamic_listed; /* 1: "dynamic" seen by a re-entrant list; 2: not seen */
    atomic_int sampling_calls;
    atomic_int sampling_mode;
    atomic_int sampling_ping; /* result of a re-entrant ping, +1 */
    atomic_int elicitation_calls;
    pthread_mutex_t lock;
    char last_log[1024];
    char last_updated[1024];
    char last_sampling[2048];
};
extern struct stdio_seen seen;
void on_notification(void *userdata, const char *method, const char *params);
void on_stderr(void *userdata, const char *line);
mcp_result on_sampling(void *userdata, const char *params, char **result);
mcp_result on_elicitation(void *userdata, const char *params, char **result);
void test_logging(void);
void test_sampling(void);
void test_elicitation(void);
void test_roots(void);
void test_client_info(void);
void test_list_changed_reentrant(void);
void test_subscriptions(void);

/* In test_stdio_lifecycle.c. */
void test_close(void);
void test_server_killed_mid_call(void);
void test_server_stops_itself(void);
void test_free_inside_callback(void);
void test_server_freed_inside_callback(void);
void test_parallel_lifecycles(void);

#endif
