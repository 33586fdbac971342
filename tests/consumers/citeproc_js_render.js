// Render a CSL-JSON document with citeproc-js (npm `citeproc`, the engine in Zotero and Mendeley).
//
// Usage: node citeproc_js_render.js STYLE.csl LOCALE_DIR [text|html] < items.json
// Prints one JSON object: {"bibliography": [...], "citations": [...], "warnings": [...],
// "errors": [...]}. `bibliography` holds the entries (plain text or HTML) in the style's order;
// `citations` holds one in-text citation per item, in input order. The module is found through
// NODE_PATH (the test harness installs it in a cache directory outside the repository).
"use strict";

const fs = require("fs");
const path = require("path");

function main() {
  const [stylePath, localeDir, format = "text"] = process.argv.slice(2);
  const result = { bibliography: [], citations: [], warnings: [], errors: [] };
  let CSL;
  try {
    CSL = require("citeproc");
  } catch (err) {
    result.errors.push(`cannot load citeproc: ${err.message}`);
    return result;
  }
  // citeproc-js reports problems through these hooks; keep them instead of printing them.
  CSL.debug = (msg) => result.warnings.push(String(msg));
  CSL.error = (msg) => { throw new Error(String(msg)); };

  let items = JSON.parse(fs.readFileSync(0, "utf8"));
  if (!Array.isArray(items)) items = [items];
  const byId = new Map();
  for (const item of items) byId.set(String(item.id), item);

  const sys = {
    retrieveItem: (id) => byId.get(String(id)),
    retrieveLocale: (lang) => {
      const wanted = path.join(localeDir, `locales-${lang}.xml`);
      // Only en-US ships with the tests; other languages fall back to it.
      const file = fs.existsSync(wanted) ? wanted : path.join(localeDir, "locales-en-US.xml");
      return fs.readFileSync(file, "utf8");
    },
  };

  const engine = new CSL.Engine(sys, fs.readFileSync(stylePath, "utf8"), "en-US");
  engine.setOutputFormat(format);
  const ids = items.map((item) => String(item.id));
  // Register every item first, so numeric styles number the citations in input order.
  engine.updateItems(ids);
  // Cite each item once, in input order, as a document would; citeproc-js returns the
  // clusters it (re)rendered, so keep the latest text for each position.
  const pre = [];
  const texts = [];
  ids.forEach((id, i) => {
    try {
      const cite = { citationID: `c${i}`, citationItems: [{ id }], properties: { noteIndex: 0 } };
      const [, updated] = engine.processCitationCluster(cite, pre, []);
      for (const [index, text] of updated) texts[index] = text;
      pre.push([`c${i}`, 0]);
    } catch (err) {
      result.errors.push(`citation ${id}: ${err.message}`);
    }
  });
  result.citations = texts;
  const made = engine.makeBibliography();
  if (!made) {
    result.errors.push("the style made no bibliography");
    return result;
  }
  const [meta, entries] = made;
  for (const id of meta.entry_ids.flat()) {
    if (!byId.has(String(id))) result.errors.push(`bibliography names unknown item ${id}`);
  }
  // HTML entries come wrapped in <div class="csl-entry">; keep what is inside.
  result.bibliography = entries.map((entry) =>
    entry.trim().replace(/^<div class="csl-entry">([\s\S]*)<\/div>$/, "$1").trim());
  if (meta.bibliography_errors && meta.bibliography_errors.length) {
    for (const e of meta.bibliography_errors) {
      result.errors.push(`bibliography error in ${e.itemID}: ${JSON.stringify(e)}`);
    }
  }
  return result;
}

let out;
try {
  out = main();
} catch (err) {
  out = { bibliography: [], citations: [], warnings: [], errors: [`${err.stack || err}`] };
}
process.stdout.write(JSON.stringify(out));
