// Holds planted credentials for the redaction tests; every value comes from the environment the test sets.
function main() {
  const password = process.env.PLANT_PASSWORD;
  const awsKey = process.env.PLANT_AWS;
  const token = process.env.TOKEN;
  const config = { user: "ada", password: password, note: "login with password=" + password };
  const credentials = { login: "ada", code: password };
  console.log("Authorization: Bearer " + process.env.PLANT_JWT);
  console.log("the password is " + password);
  console.log("ready", awsKey.length, config.user, token.length, credentials.login); // stop here
}

main();
