import { build } from 'esbuild';
const entry = process.argv[2];
const r = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, minify: true, metafile: true, logLevel: 'silent', conditions: ['@neura/source'], outfile: '/tmp/size/out.js' });
const out = Object.values(r.metafile.outputs)[0];
const ins = Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput);
// importers
const importers = {};
for (const [f, v] of Object.entries(r.metafile.inputs)) for (const i of v.imports) (importers[i.path] ??= []).push(f.replace(/packages\//,''));
for (const [f,v] of ins) console.log(v.bytesInOutput+'\t'+f.replace('packages/','')+'\t<- '+(importers[f]??[]).join(', '));
