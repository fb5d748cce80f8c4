#!/bin/sh
curl -s -X POST -H "Authorization: Bearer $TICKETS_TOKEN" -d "{\"title\": \"$1\"}" https://tickets.example.com/api
