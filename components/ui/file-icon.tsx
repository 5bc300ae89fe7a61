const ICONS: Record<string, [string, string]> = {
  ts: ["TS", "#3178c6"],
  tsx: ["⚛", "#4fc1ff"],
  mts: ["TS", "#3178c6"],
  cts: ["TS", "#3178c6"],
  js: ["JS", "#e8d44d"],
  jsx: ["⚛", "#4fc1ff"],
  mjs: ["JS", "#e8d44d"],
  cjs: ["JS", "#e8d44d"],
  json: ["{}", "#cbcb41"],
  md: ["M↓", "#519aba"],
  css: ["#", "#42a5f5"],
  scss: ["#", "#f55385"],
  html: ["<>", "#e37933"],
  py: ["py", "#4b8bbe"],
  pyi: ["py", "#4b8bbe"],
  rb: ["rb", "#cc342d"],
  java: ["J", "#b07219"],
  kt: ["kt", "#a97bff"],
  c: ["C", "#6e8fbf"],
  h: ["h", "#6e8fbf"],
  cpp: ["C+", "#f34b7d"],
  cs: ["C#", "#178600"],
  php: ["php", "#777bb4"],
  swift: ["sw", "#f05138"],
  vue: ["V", "#41b883"],
  svelte: ["S", "#ff3e00"],
  rs: ["rs", "#dea584"],
  go: ["go", "#00add8"],
  sh: ["$", "#89e051"],
  bash: ["$", "#89e051"],
  zsh: ["$", "#89e051"],
  yml: ["≡", "#a074c4"],
  yaml: ["≡", "#a074c4"],
  toml: ["≡", "#9c4221"],
  sql: ["db", "#dad8d8"],
  svg: ["◈", "#ffb13b"],
  png: ["▣", "#a074c4"],
  jpg: ["▣", "#a074c4"],
  jpeg: ["▣", "#a074c4"],
  webp: ["▣", "#a074c4"],
  gif: ["▣", "#a074c4"],
  lock: ["🔒", "#8b8b8b"],
  txt: ["≡", "#8b8b8b"],
};

export function FileIcon({ name }: { name: string }) {
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  const [text, color] = ICONS[ext] ?? ["·", "#8b8b8b"];
  return (
    <span className="file-icon" style={{ color, fontWeight: 700, fontSize: text.length > 1 ? 9 : 12 }} aria-hidden>
      {text}
    </span>
  );
}
