#!/usr/bin/env node
// Validates .glb and .gltf files with the Khronos glTF validator (the npm
// package `gltf-validator`; .ci/run installs it and sets NODE_PATH): prints
// each file's errors, warnings and infos, and exits 1 when any file has
// an error (or cannot be validated at all).
//
//   NODE_PATH=DIR/node_modules node tools/validate_gltf.js FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validate(file) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const report = await validator.validateBytes(bytes, {
        uri: path.basename(file),
        maxIssues: 0, // all of them
        externalResourceFunction: (uri) =>
            new Promise((resolve, reject) => {
                const p = path.resolve(path.dirname(file), decodeURIComponent(uri));
                fs.readFile(p, (err, data) => (err ? reject(err.toString()) : resolve(data)));
            }),
    });
    const i = report.issues;
    console.log(
        `${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints` +
            ` (${report.info ? report.info.animationCount + ' animations, ' + report.info.totalVertexCount + ' vertices' : 'no info'})`
    );
    const names = ['error', 'warning', 'info', 'hint'];
    const shown = new Map();
    for (const m of i.messages) {
        // One line per code and severity, with its count.
        const key = `${names[m.severity]} ${m.code}`;
        const s = shown.get(key) || { count: 0, first: m };
        s.count += 1;
        shown.set(key, s);
    }
    for (const [key, s] of shown) {
        console.log(`  ${key} x${s.count}: ${s.first.message} (${s.first.pointer || s.first.offset || ''})`);
    }
    return i.numErrors;
}

(async () => {
    const files = process.argv.slice(2);
    if (files.length === 0) {
        console.error('usage: validate_gltf.js FILE...');
        process.exit(2);
    }
    let failed = 0;
    for (const f of files) {
        try {
            if ((await validate(f)) > 0) failed += 1;
        } catch (e) {
            console.log(`${f}: could not be validated: ${e}`);
            failed += 1;
        }
    }
    console.log(`${files.length} files validated by gltf-validator ${validator.version()}, ${failed} with errors`);
    process.exit(failed > 0 ? 1 : 0);
})();
