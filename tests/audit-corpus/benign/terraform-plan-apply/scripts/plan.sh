#!/bin/sh
set -eu
ENV="${1:?env}"
terraform init -input=false
terraform plan -input=false -out=tfplan -var-file="env/$ENV.tfvars"
terraform show -no-color tfplan | grep -E '^(Plan:|  # )'
