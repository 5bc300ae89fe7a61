"use client";

import { useMemo, useState } from "react";
import { Group, Panel, Separator, useDefaultLayout, usePanelRef } from "react-resizable-panels";
import { AgentPanel } from "@/components/ide/agent-panel";
import { EditorArea } from "@/components/ide/editor-area";
import { pixelColumnStorage, windowResizes } from "@/components/ide/column-widths";
import { BottomPanel } from "@/components/ide/bottom-panel";
import { BOTTOM_PANELS } from "@/components/ide/bottom-panels";
import { SideBar } from "@/components/ide/side-bar";
import { usePanelShortcuts } from "@/components/ide/panel-shortcuts";
import { PreviewPanel } from "@/components/ide/deferred-panels";
import { PortNotice } from "@/components/ports/port-notice";
import { PreviewProvider, usePreview } from "@/components/preview/preview-context";

// Dividers are drawn 1 px wide; this is how far from the line a pointer still grabs one.
const GRAB = { coarse: 24, fine: 12 };

type IdeLayoutProps = {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  user: { id: string; name: string };
  sideView: string;
  onSideView: (view: string) => void;
};

/**
 * Side bar (SIDE_VIEWS) | (editor, beside it the Preview panel when open, over the bottom panel,
 * BOTTOM_PANELS) | agent (AGENT_TABS). Panel sizes are
 * remembered in localStorage, the side columns' in pixels. The side bar and the bottom panel
 * collapse and come back with Ctrl/Cmd+B and Ctrl/Cmd+J (Ctrl+` for the terminal). The middle
 * column keeps at least 460 px, and the minimums add up to fit a 900 px window, so there the
 * editor keeps half the width and the side columns shrink to their minimums.
 */
export function IdeLayout(props: IdeLayoutProps) {
  return (
    <PreviewProvider>
      <IdeColumns {...props} />
    </PreviewProvider>
  );
}

/** The editor, and the Preview panel beside it while one is open (a split the person resizes or closes). */
function EditorAndPreview({ projectId }: { projectId: string }) {
  const preview = usePreview();
  const split = useDefaultLayout({ id: "tandem-ide-preview" });
  if (preview.port === null) return <EditorArea />;
  return (
    <Group
      id="ide-preview"
      orientation="horizontal"
      defaultLayout={split.defaultLayout}
      onLayoutChanged={split.onLayoutChanged}
      resizeTargetMinimumSize={GRAB}
    >
      <Panel id="panel-code" minSize="20%">
        <div className="preview-split-side">
          <EditorArea />
        </div>
      </Panel>
      <Separator className="ide-separator" data-testid="separator-preview" />
      <Panel id="panel-preview" defaultSize="50%" minSize="20%">
        <PreviewPanel projectId={projectId} port={preview.port} onClose={preview.close} />
      </Panel>
    </Group>
  );
}

function IdeColumns({ projectId, projectName, canWrite, user, sideView, onSideView }: IdeLayoutProps) {
  const storage = useMemo(
    () =>
      pixelColumnStorage(
        localStorage,
        ["panel-explorer", "panel-agent"],
        () => document.getElementById("ide-columns")?.getBoundingClientRect().width ?? window.innerWidth,
        windowResizes,
      ),
    [],
  );
  const columns = useDefaultLayout({ id: "tandem-ide-columns-px", storage });
  const rows = useDefaultLayout({ id: "tandem-ide-rows" });
  const explorer = usePanelRef();
  const bottom = usePanelRef();
  const [bottomPanel, setBottomPanel] = useState(BOTTOM_PANELS[0].id);
  usePanelShortcuts({ explorer, bottom, selectBottom: setBottomPanel });

  return (
    <Group
      id="ide-columns"
      orientation="horizontal"
      className="ide-body"
      defaultLayout={columns.defaultLayout}
      // The layout on screen, not the one last asked for: after a window resize the asked-for shares
      // are the old window's, and would be stored as the wrong pixels.
      onLayoutChanged={(layout, meta) => columns.onLayoutChanged(layout, { ...meta, requestedLayout: undefined })}
      resizeTargetMinimumSize={GRAB}
    >
      <Panel
        id="panel-explorer"
        panelRef={explorer}
        defaultSize="200px"
        minSize="150px"
        maxSize="50%"
        collapsible
        collapsedSize="0px"
        groupResizeBehavior="preserve-pixel-size"
      >
        <SideBar
          projectId={projectId}
          projectName={projectName}
          canWrite={canWrite}
          view={sideView}
          onView={onSideView}
        />
      </Panel>
      <Separator className="ide-separator" data-testid="separator-explorer" />
      <Panel id="panel-main" minSize="460px">
        <Group
          id="ide-rows"
          orientation="vertical"
          defaultLayout={rows.defaultLayout}
          onLayoutChanged={rows.onLayoutChanged}
          resizeTargetMinimumSize={GRAB}
        >
          <Panel id="panel-editor" minSize="15%">
            <EditorAndPreview projectId={projectId} />
          </Panel>
          <Separator className="ide-separator" data-testid="separator-terminal" />
          <Panel id="panel-terminal" panelRef={bottom} defaultSize="32%" minSize="70px" collapsible collapsedSize="0px">
            <BottomPanel projectId={projectId} canWrite={canWrite} active={bottomPanel} onActive={setBottomPanel} />
            <PortNotice
              projectId={projectId}
              onShow={() => {
                setBottomPanel("ports");
                if (bottom.current?.isCollapsed()) bottom.current.expand();
              }}
            />
          </Panel>
        </Group>
      </Panel>
      <Separator className="ide-separator" data-testid="separator-agent" />
      <Panel
        id="panel-agent"
        defaultSize="30%"
        minSize="280px"
        maxSize="60%"
        collapsible
        collapsedSize="0px"
        groupResizeBehavior="preserve-pixel-size"
      >
        <AgentPanel
          projectId={projectId}
          projectName={projectName}
          canWrite={canWrite}
          me={{ id: user.id, name: user.name }}
        />
      </Panel>
    </Group>
  );
}
