#!/bin/sh
# The part of the official postgres image's entry point the stack uses: a first start initializes
# PGDATA with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, and Postgres listens on every address.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > /tmp/pwfile
  initdb -D "$PGDATA" -E UTF8 --locale=C -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start > /dev/null
    psql -v ON_ERROR_STOP=1 -U "${POSTGRES_USER:-postgres}" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" > /dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop > /dev/null
  fi
fi
exec "$@" -c listen_addresses='*'
