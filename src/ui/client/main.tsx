import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { initToken } from "./api.js";
import { InboxPage } from "./inbox-page.js";
import { NodePage } from "./node-page.js";
import { RunPage } from "./run-page.js";
import { RunsPage } from "./runs-page.js";
import { TracesPage } from "./traces-page.js";
import "./style.css";

/** The hash route: `#/`, `#/runs/ID`, `#/runs/ID/nodes/NODE`, `#/inbox`, `#/traces?…`. */
function useRoute(): { parts: string[]; query: URLSearchParams } {
  const read = () => {
    const [path = "", search = ""] = location.hash.replace(/^#/, "").split("?");
    return {
      parts: path.split("/").filter(Boolean).map(decodeURIComponent),
      query: new URLSearchParams(search),
    };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener("hashchange", onChange);
    // Effects run after paint: a hash change between the first render and now had no listener yet.
    onChange();
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

function Page({ parts, query }: { parts: string[]; query: URLSearchParams }) {
  const [head, id, sub, node] = parts;
  if (head === "runs" && id && sub === "nodes" && node) return <NodePage runId={id} nodeId={node} />;
  if (head === "runs" && id) return <RunPage runId={id} />;
  if (head === "inbox") return <InboxPage runId={query.get("runId") ?? undefined} />;
  if (head === "traces") return <TracesPage query={query} />;
  return <RunsPage />;
}

function App({ token }: { token: string | null }) {
  const route = useRoute();
  const here = route.parts[0] ?? "";
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          deputy
        </a>
        <nav>
          <a href="#/" class={here === "" || here === "runs" ? "on" : ""}>
            Runs
          </a>
          <a href="#/inbox" class={here === "inbox" ? "on" : ""}>
            Inbox
          </a>
          <a href="#/traces" class={here === "traces" ? "on" : ""}>
            Traces
          </a>
        </nav>
      </header>
      <main>
        {token ? (
          <Page {...route} />
        ) : (
          <p class="error">
            No console token: open the URL that <code>deputy ui</code> printed (it ends in #token=…).
          </p>
        )}
      </main>
    </>
  );
}

render(<App token={initToken()} />, document.getElementById("app")!);
