module.exports = {
  staging: { dbHost: "db2.internal", poolSize: 5 },
  production: { dbHost: "db2.internal", poolSize: 20 },
};
