#!/usr/bin/env node
/**
 * Draws the MCP Bundle's icon, mcpb/icon.png: a white gear on a teal rounded square, 512 x 512 (the size
 * `mcpb validate` recommends), as an 8-bit RGBA PNG built by hand with node:zlib (no image library). The drawing
 * is a few signed distances sampled 4 x 4 per pixel, so edges are smooth and the bytes are the same on every run:
 * test/e2e/bundle.test.ts redraws it and compares.
 *
 *   node scripts/make-icon.mjs [--out FILE]
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { deflateSync } from "node:zlib";

const SIZE = 512;
const SAMPLES = 4;
const BACKGROUND = [0x1f, 0x6f, 0x78];
const FOREGROUND = [0xff, 0xff, 0xff];

/** Distance outside a rounded square filling the icon with a small margin (negative inside). */
function roundedSquare(x, y) {
  const half = SIZE / 2 - 8;
  const radius = 96;
  const qx = Math.abs(x - SIZE / 2) - (half - radius);
  const qy = Math.abs(y - SIZE / 2) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

/** Inside the gear: a ring with eight teeth, minus its hole. */
function inGear(x, y) {
  const dx = x - SIZE / 2;
  const dy = y - SIZE / 2;
  const r = Math.hypot(dx, dy);
  const angle = Math.atan2(dy, dx);
  const teeth = 8;
  // Position within one tooth period, 0 at a tooth's centre.
  const phase = Math.abs((((((angle / (2 * Math.PI)) * teeth) % 1) + 1.5) % 1) - 0.5);
  const outer = phase < 0.22 ? 190 : 150;
  return r <= outer && r >= 62;
}

function pixel(px, py) {
  let cover = 0;
  let gear = 0;
  for (let sy = 0; sy < SAMPLES; sy++) {
    for (let sx = 0; sx < SAMPLES; sx++) {
      const x = px + (sx + 0.5) / SAMPLES;
      const y = py + (sy + 0.5) / SAMPLES;
      if (roundedSquare(x, y) > 0) continue;
      cover += 1;
      if (inGear(x, y)) gear += 1;
    }
  }
  const n = SAMPLES * SAMPLES;
  if (cover === 0) return [0, 0, 0, 0];
  const mix = gear / cover;
  const rgb = BACKGROUND.map((b, i) => Math.round(b + (FOREGROUND[i] - b) * mix));
  return [...rgb, Math.round((255 * cover) / n)];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The icon as PNG bytes. */
export function drawIcon() {
  const rows = Buffer.alloc(SIZE * (1 + SIZE * 4));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (1 + SIZE * 4);
    rows[row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) Buffer.from(pixel(x, y)).copy(rows, row + 1 + x * 4);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter method choice, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outIndex = process.argv.indexOf("--out");
  const root = resolve(import.meta.dirname, "..");
  const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, "mcpb", "icon.png"));
  writeFileSync(out, drawIcon());
  process.stderr.write(`wrote ${out}\n`);
}
