#!/bin/sh
echo primed
