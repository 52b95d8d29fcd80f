// The site's search from site/index.html opened as a file: browsers refuse a Web Worker from a
// file: URL, so there the search worker runs in a hidden same-origin iframe instead, with the
// worker's two globals (postMessage to the page, "message" events from it) bridged.
// Material's offline plugin sees a polyfill named "iframe-worker" and loads nothing from a CDN.
(function () {
  if (location.protocol !== "file:") return;
  class IFrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.queue = [];
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      document.body.appendChild(this.frame);
      const inner = this.frame.contentWindow;
      inner.postMessage = (data) => {
        const event = new MessageEvent("message", { data: data });
        this.dispatchEvent(event);
        if (typeof this.onmessage === "function") this.onmessage(event);
      };
      const script = inner.document.createElement("script");
      script.onload = () => {
        this.ready = true;
        this.queue.splice(0).forEach((data) => this.postMessage(data));
      };
      script.src = new URL(url, location.href).href;
      inner.document.body.appendChild(script);
    }
    postMessage(data) {
      if (!this.ready) return void this.queue.push(data);
      const inner = this.frame.contentWindow;
      setTimeout(() => inner.dispatchEvent(new MessageEvent("message", { data: data })), 0);
    }
    terminate() {
      this.frame.remove();
    }
  }
  window.IFrameWorker = IFrameWorker;
  window.Worker = IFrameWorker;
})();
