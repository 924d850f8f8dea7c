#!/usr/bin/env bash
# Everything the test suite needs that npm does not install, made ready on this machine:
#   - PostgreSQL on 127.0.0.1:5432 and MariaDB on 127.0.0.1:3306 (the connector and end-to-end tests use
#     the real servers): started when they are installed but stopped;
#   - Debian's Chromium (the local page is tested in a real browser through playwright-core): installed
#     when missing.
# Runs before `npm test` (npm's pretest hook). Idempotent: on a ready machine it only checks.
set -euo pipefail

say() { printf 'test-setup: %s\n' "$*" >&2; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else say "needs root for: $*"; return 1
  fi
}

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
maria_up() { mariadb-admin --protocol=tcp -h 127.0.0.1 -uroot ping >/dev/null 2>&1; }

if ! pg_up; then
  if [ -d /etc/postgresql ] && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]; then
    version="$(ls /etc/postgresql | sort -V | tail -n1)"
    say "starting PostgreSQL ${version}"
    as_root pg_ctlcluster --skip-systemctl-redirect "${version}" main start || true
  else
    say "PostgreSQL is not installed (expected /etc/postgresql); the database tests need it on 127.0.0.1:5432"
  fi
fi
if ! maria_up; then
  if [ -x /usr/sbin/mariadbd ]; then
    say "starting MariaDB"
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
  else
    say "MariaDB is not installed (expected /usr/sbin/mariadbd); the database tests need it on 127.0.0.1:3306"
  fi
fi
for _ in $(seq 1 60); do
  pg_up && maria_up && break
  sleep 1
done
pg_up || { say "PostgreSQL is not answering on 127.0.0.1:5432"; exit 1; }
maria_up || { say "MariaDB is not answering on 127.0.0.1:3306"; exit 1; }

if ! command -v chromium >/dev/null 2>&1; then
  say "installing Debian's chromium (for the local page's browser tests)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q chromium >/dev/null 2>&1 || { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q chromium >/dev/null; }
  command -v chromium >/dev/null 2>&1 || { say "chromium could not be installed"; exit 1; }
fi
say "PostgreSQL, MariaDB and Chromium are ready"
