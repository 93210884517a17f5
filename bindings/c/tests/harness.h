/*
 * A minimal test harness for the C tests: each test is a function; CHECK
 * macros record failures without stopping the test; RUN prints "ok NAME" or
 * "FAIL NAME" (run-tests.sh counts these lines); finish() returns the exit
 * status. Every wait in the tests is bounded (wait_until).
 */
#ifndef MCP_TEST_HARNESS_H
#define MCP_TEST_HARNESS_H

#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <mcp.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The counts: weak definitions, not static, so that a test program built
 * from several files (test_stdio) has one of each, whichever file a CHECK or
 * a RUN is in. */
__attribute__((weak)) int harness_failed_checks;
__attribute__((weak)) int harness_passed;
__attribute__((weak)) int harness_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n", __FILE__,      \
                    __LINE__, #cond, mcp_last_error_message());                         \
            harness_failed_checks++;                                                    \
        }                                                                               \
    } while (0)

/* Checks that `expr` returns `code`. */
#define CHECK_RC(expr, code)                                                            \
    do {                                                                                \
        mcp_result check_rc_ = (expr);                                                  \
        if (check_rc_ != (code)) {                                                      \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n",     \
                    __FILE__, __LINE__, #expr, mcp_result_name(check_rc_),              \
                    mcp_result_name(code), mcp_last_error_message());                   \
            harness_failed_checks++;                                                    \
        }                                                                               \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, MCP_OK)

/* Checks that `text` (not NULL) contains `needle`. */
#define CHECK_CONTAINS(text, needle)                                                    \
    do {                                                                                \
        const char *check_text_ = (text);                                               \
        if (!check_text_ || !strstr(check_text_, (needle))) {                           \
            fprintf(stderr, "%s:%d: expected %s to contain %s, got: %s\n", __FILE__,     \
                    __LINE__, #text, (needle), check_text_ ? check_text_ : "(null)");   \
            harness_failed_checks++;                                                    \
        }                                                                               \
    } while (0)

static inline void harness_run(const char *name, void (*test)(void)) {
    int before = harness_failed_checks;
    test();
    if (harness_failed_checks == before) {
        printf("ok %s\n", name);
        harness_passed++;
    } else {
        printf("FAIL %s\n", name);
        harness_failed++;
    }
    fflush(stdout);
}

#define RUN(test) harness_run(#test, test)

static inline int finish(void) {
    printf("summary: %d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed == 0 ? 0 : 1;
}

static inline void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Waits until *flag reaches at least `value`, for at most `timeout_ms`. */
static inline int wait_until(atomic_int *flag, int value, long timeout_ms) {
    double deadline = now_ms() + (double)timeout_ms;
    while (atomic_load(flag) < value) {
        if (now_ms() > deadline) return 0;
        sleep_ms(5);
    }
    return 1;
}

/* The NULL-terminated environment passed to child processes: the sanitizer
 * settings, so that a child's reports go where run-tests.sh looks. */
static inline const char *const *sanitizer_env(void) {
    static char entries[3][1024];
    static const char *envp[4];
    const char *names[3] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const char *value = getenv(names[i]);
        if (!value) continue;
        snprintf(entries[n], sizeof entries[n], "%s=%s", names[i], value);
        envp[n] = entries[n];
        n++;
    }
    envp[n] = NULL;
    return envp;
}

/* `{"message":"xxx…"}` with a message of `size` bytes (the echo tool's
 * arguments, for messages over the limit); the caller frees it. NULL when
 * out of memory. */
static inline char *echo_args_of_size(size_t size) {
    char *args = malloc(size + 32);
    if (!args) return NULL;
    strcpy(args, "{\"message\":\"");
    size_t at = strlen(args);
    memset(args + at, 'x', size);
    strcpy(args + at + size, "\"}");
    return args;
}

#endif
