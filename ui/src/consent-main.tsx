import { render } from "preact";
import { ConsentApp, start } from "./ConsentApp";

// Before the first render: the commands are on their way while Preact mounts.
render(<ConsentApp start={start(location.hash)} />, document.getElementById("app")!);
