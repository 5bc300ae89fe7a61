// Builds a tar by hand (ustar headers) with whatever names and entry types a test needs: tar
// writers refuse or rewrite the hostile names ("../evil", "/etc/x") and links an attacker would.

export type RawTarEntry = {
  name: string;
  data?: string | Buffer;
  /** "0" a file, "1" a hard link, "2" a symbolic link, "5" a folder, "6" a FIFO. */
  type?: "0" | "1" | "2" | "3" | "5" | "6";
  linkname?: string;
};

export function rawTar(entries: RawTarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? "");
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, "utf8");
    header.write("0000644\0", 100, "latin1");
    header.write("0000000\0", 108, "latin1");
    header.write("0000000\0", 116, "latin1");
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124, "latin1");
    header.write(
      `${Math.floor(Date.now() / 1000)
        .toString(8)
        .padStart(11, "0")}\0`,
      136,
      "latin1",
    );
    header.write("        ", 148, "latin1");
    header.write(entry.type ?? "0", 156, "latin1");
    if (entry.linkname) header.write(entry.linkname, 157, 100, "utf8");
    header.write("ustar\0", 257, "latin1");
    header.write("00", 263, "latin1");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
