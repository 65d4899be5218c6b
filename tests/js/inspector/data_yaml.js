// Data breakpoints (issue 23) on an npm library's objects: yaml's document nodes, one written inside yaml's own code
// (YAMLMap.add keeps a scalar's node and sets its value), one from the program's visitor callback that yaml calls, and
// a plain property written from an Array callback.
const path = require("path");
const YAML = require(path.join(__dirname, "..", "npmlibs", "node_modules", "yaml"));

function main() {
  const doc = YAML.parseDocument("db:\n  host: localhost\n  port: 5432\nname: shop\n");
  const host = doc.getIn(["db", "host"], true); // yaml's Scalar node
  const name = doc.get("name", true);
  const settings = { retries: 1 };
  const ready = [host, name].length; // stop here
  doc.setIn(["db", "host"], "db.internal");
  YAML.visit(doc, {
    Scalar(key, node) {
      if (node === name) node.value = node.value.toUpperCase(); // written in a visitor
    },
  });
  [3, 5].forEach((n) => {
    settings.retries = n; // written in a callback
  });
  console.log(`done ${ready} ${doc.toString().trim().split("\n").join("|")} ${settings.retries} ${host instanceof YAML.Scalar}`);
}

main();
