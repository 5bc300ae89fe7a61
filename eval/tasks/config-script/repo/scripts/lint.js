console.log("lint ok");
