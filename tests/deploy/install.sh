#!/usr/bin/env bash
# Installs redis-server and haproxy from the Debian packages if missing
# (the deployment test, and the C and Python `store` tests, use them). Only
# installs: nothing is started as the system's services here.
set -euo pipefail
if ! command -v redis-server >/dev/null || ! command -v haproxy >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server haproxy >/dev/null
fi
