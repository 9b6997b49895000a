// The layering of CONTRIBUTING.md as rules: a wrong import or a cycle fails `pnpm lint` (and so CI).
// Packages are matched by folder; imports between packages go through their `@neura/*` names.
const pkg = (name) => `^packages/${name}/`;
const allowed = {
  ir: [],
  egraph: ['ir'],
  autograd: ['ir'],
  optim: ['ir'],
  'wgsl-kernels': ['ir'],
  'runtime-webgpu': ['ir', 'wgsl-kernels'],
  nn: ['ir', 'egraph', 'autograd', 'optim', 'wgsl-kernels', 'runtime-webgpu'],
};
const all = Object.keys(allowed);

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    // an import of a package the importer does not declare cannot resolve: also a layer break
    { name: 'no-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
    ...all.map((name) => ({
      name: `layer-${name}`,
      comment: `${name} may import only: ${allowed[name].join(', ') || 'nothing'}`,
      severity: 'error',
      from: { path: pkg(name) },
      to: {
        path: `^packages/(${all.filter((o) => o !== name && !allowed[name].includes(o)).join('|')})/`,
      },
    })),
    {
      name: 'egraph-core-imports-nothing',
      comment: 'egraph/src/core is a generic engine: no ir, no other package, no node builtins',
      severity: 'error',
      from: { path: '^packages/egraph/src/core/' },
      to: { pathNot: '^packages/egraph/src/core/' },
    },
    {
      name: 'ir-and-core-no-webgpu',
      severity: 'error',
      from: { path: '^packages/(ir|egraph|autograd|optim|wgsl-kernels)/src/' },
      to: { path: 'node_modules/(webgpu|@webgpu)/' },
    },
    {
      name: 'browser-safe-entries',
      comment: 'package code bundles for browsers: node builtins only behind @neura/nn/node (nn/src/node*) and in tests',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: ['^packages/nn/src/node(/|\\.ts$)', '\\.test\\.ts$'] },
      to: { dependencyTypes: ['core'], dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'packages-not-apps',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(node_modules|dist|\\.devkit)' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { conditionNames: ['@neura/source', 'import', 'default'], exportsFields: ['exports'] },
  },
};
