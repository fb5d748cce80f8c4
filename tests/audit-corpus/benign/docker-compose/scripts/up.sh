#!/bin/sh
docker compose pull
docker compose up -d
docker compose ps
