module.exports = {
  staging: { dbHost: "db-staging.internal", poolSize: 5 },
  production: { dbHost: "db1.internal", poolSize: 20 },
};
