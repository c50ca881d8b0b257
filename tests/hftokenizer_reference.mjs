// The reference ids for tst_hftokenizer: Hugging Face's own JavaScript port of `tokenizers` reading a folder's
// tokenizer.json (and tokenizer_config.json where present), as tokenizer(text) with the defaults.
// Usage: node hftokenizer_reference.mjs <node_modules folder> <tokenizer folder> < texts.json > ids.json
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, folder] = process.argv.slice(2);
const { Tokenizer } = await import(
    pathToFileURL(join(modules, "@huggingface", "tokenizers", "dist", "tokenizers.mjs")).href);
const read = (name) => JSON.parse(readFileSync(join(folder, name), "utf8"));
const config = existsSync(join(folder, "tokenizer_config.json")) ? read("tokenizer_config.json") : {};
const tokenizer = new Tokenizer(read("tokenizer.json"), config);
const texts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((text) => tokenizer.encode(text).ids)));
