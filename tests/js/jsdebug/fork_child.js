console.log("child says hi");
