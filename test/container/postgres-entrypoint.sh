#!/bin/sh
# The part of the official postgres image's entry point the stack uses: a first start initializes
# PGDATA with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, and Postgres listens on every address.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > /tmp/pwfile
  initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != "${POSTGRES_USER:-postgres}" ]; then
    postgres --single -D "$PGDATA" -c listen_addresses='' postgres <<SQL > /dev/null
CREATE DATABASE "$POSTGRES_DB" OWNER "${POSTGRES_USER:-postgres}";
SQL
  fi
fi
exec "$@" -c listen_addresses='*'
