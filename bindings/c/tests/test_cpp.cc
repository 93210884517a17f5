/*
 * The header from C++: a translation unit that includes standard C++ and C
 * headers after mcp.h (a declaration in mcp.h that clashes with the C
 * library's breaks this file), built with -Wall -Wextra -Werror
 * -Wredundant-decls, and a few calls through the API from C++.
 * Usage: test_cpp
 */
#include <mcp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdlib.h>
#include <string>

static int failures = 0;

static void check(bool ok, const char *what) {
    std::printf("%s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) {
        std::fprintf(stderr, "%s failed (last error: %s)\n", what, mcp_last_error_message());
        failures++;
    }
}

/* Owns a string the library returned. */
struct owned_string {
    char *text = nullptr;
    ~owned_string() { mcp_string_free(text); }
};

static mcp_result echo(void *, mcp_context *, const char *arguments, char **result) {
    std::string json = std::string("{\"content\":[{\"type\":\"text\",\"text\":") +
                       (std::strstr(arguments, "\"cpp\"") ? "\"from C++\"" : "\"?\"") + "}]}";
    *result = mcp_string_new(json.c_str());
    return MCP_OK;
}

int main() {
    check(std::string(mcp_version()).find('.') != std::string::npos, "cpp_version");
    owned_string quoted;
    check(mcp_json_quote("a\"b", &quoted.text) == MCP_OK && std::string(quoted.text) == "\"a\\\"b\"",
          "cpp_json_quote");
    owned_string none;
    check(mcp_json_quote(nullptr, &none.text) == MCP_ERR_NULL_ARGUMENT && none.text == nullptr && std::string(mcp_result_name(mcp_last_error_code())) ==
                                             "MCP_ERR_NULL_ARGUMENT",
          "cpp_null_argument");

    mcp_server *server = nullptr;
    check(mcp_server_new("cpp", "1", &server) == MCP_OK, "cpp_server_new");
    check(mcp_server_add_tool(server, "echo", nullptr, "{\"type\":\"object\"}", echo, nullptr) ==
              MCP_OK,
          "cpp_add_tool");
    uint16_t port = 0;
    check(mcp_server_serve_http(server, "127.0.0.1:0", &port) == MCP_OK && port != 0,
          "cpp_serve_http");
    mcp_client *client = nullptr;
    check(mcp_client_new("cpp-client", "1", &client) == MCP_OK, "cpp_client_new");
    std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    check(mcp_client_connect_http(client, url.c_str(), nullptr) == MCP_OK, "cpp_connect");
    owned_string result;
    check(mcp_client_call_tool(client, "echo", "{\"cpp\":true}", nullptr, &result.text) ==
                  MCP_OK &&
              std::strstr(result.text, "from C++") != nullptr,
          "cpp_call_tool");
    mcp_client_free(client);
    mcp_server_free(server);
    std::printf("summary: %d failed\n", failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
