require("node:test")("ok", () => {});
