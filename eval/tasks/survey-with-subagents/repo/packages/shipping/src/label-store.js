const fs = require("node:fs");

function saveLabel(id, pdf) {
  fs.writeFileSync(`/var/labels/${id}.pdf`, pdf);
}

module.exports = { saveLabel };
