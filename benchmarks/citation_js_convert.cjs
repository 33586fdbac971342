// Drive citation-js as a user would: read a .bib file, write CSL-JSON, RIS or BibTeX.
// Usage: node citation_js_convert.cjs INPUT.bib csl-json|ris|bibtex OUTPUT
// Modules resolve through NODE_PATH (convert.py points it at the npm cache folder), so nothing
// is installed in the repository. Only the plugins the output needs are loaded: CSL-JSON is
// citation-js's own data format, so @citation-js/plugin-csl (styled bibliographies) is not.
//
// citation-js aborts the whole file when one field value does not parse (TUGboat has such
// values). To time the rest of the file, a value that throws is kept as its raw text and
// counted; the count goes to stderr, so the benchmark can say how many values were not decoded.
'use strict'
const fs = require('fs')
const [input, target, output] = process.argv.slice(2)
const { Cite } = require('@citation-js/core')
require('@citation-js/plugin-bibtex')
if (target === 'ris') require('@citation-js/plugin-ris')

const value = require('@citation-js/plugin-bibtex/lib/input/value.js')
const parseValue = value.parse
let failed = 0
value.parse = function (text, ...rest) {
  try {
    return parseValue(text, ...rest)
  } catch (error) {
    failed += 1
    return text
  }
}

const text = fs.readFileSync(input, 'utf8')
const cite = new Cite(text, { forceType: '@biblatex/text' })
let out
if (target === 'csl-json') out = cite.format('data', { format: 'text' }) + '\n'
else if (target === 'ris') out = cite.format('ris')
else if (target === 'bibtex') out = cite.format('bibtex')
else { console.error(`unknown target ${target}`); process.exit(2) }
fs.writeFileSync(output, out)
if (failed) console.error(`citation-js: ${failed} field value(s) did not parse; kept raw`)
