import { benchEgraphSaturation } from './egraphSaturation.js';
for (let i = 0; i < 3; i++) console.log(JSON.stringify(await benchEgraphSaturation()));
