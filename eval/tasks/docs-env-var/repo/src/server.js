const port = Number(process.env.PORT ?? 3000);
const level = process.env.LOG_LEVEL ?? "info";
console.log(`listening on ${port} (log level ${level})`);
