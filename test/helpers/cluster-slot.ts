/**
 * The Redis Cluster slot of a key, written from the Cluster specification
 * (CRC16-XMODEM of the hash tag, mod 16384) apart from the store's own code,
 * so a test can hold the store's layout against what a Cluster would do.
 */
export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(hashed, 'utf8')) % 16384;
}

export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
