module.exports = {
  staging: { dbHost: "db-staging.internal", poolSize: 5 },
  production: { dbHost: "db2.internal", poolSize: 20 },
};
