/*
 * libmcp from C++: a server with one tool, served over HTTP on a free
 * loopback port, and a client in the same program that calls it.
 *   ./hello            prints the tool's result and exits 0
 */
#include <mcp.h>

#include <cstdio>
#include <string>

namespace {

/* A string the library returned, freed when it goes out of scope. */
struct library_string {
    char *text = nullptr;
    library_string() = default;
    library_string(const library_string &) = delete;
    library_string &operator=(const library_string &) = delete;
    ~library_string() { mcp_string_free(text); }
};

mcp_result greet(void *, mcp_context *, const char *, char **result_json) {
    *result_json = mcp_string_new(
        "{\"content\":[{\"type\":\"text\",\"text\":\"Hello from C++\"}]}");
    return MCP_OK;
}

int fail(const char *what) {
    std::fprintf(stderr, "hello: %s: %s\n", what, mcp_last_error_message());
    return 1;
}

}  // namespace

int main() {
    std::printf("libmcp %s (header %s)\n", mcp_version(), MCP_VERSION_STRING);
    mcp_server *server = nullptr;
    if (mcp_server_new("hello-cpp", "1.0.0", &server) != MCP_OK) return fail("mcp_server_new");
    uint16_t port = 0;
    if (mcp_server_add_tool(server, "greet", "Says hello", "{\"type\":\"object\"}", greet,
                            nullptr) != MCP_OK ||
        mcp_server_start_http(server, nullptr, &port) != MCP_OK) {
        mcp_server_free(server);
        return fail("serving");
    }
    mcp_client *client = nullptr;
    std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    library_string result;
    int status = 0;
    if (mcp_client_new("hello-cpp-client", "1.0.0", &client) != MCP_OK ||
        mcp_client_connect_http(client, url.c_str(), nullptr) != MCP_OK ||
        mcp_client_call_tool(client, "greet", nullptr, nullptr, &result.text) != MCP_OK) {
        status = fail("calling greet");
    } else {
        std::printf("greet: %s\n", result.text);
    }
    mcp_client_free(client);
    mcp_server_free(server);
    return status;
}
