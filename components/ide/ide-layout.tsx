"use client";

import { Group, Panel, Separator, useDefaultLayout } from "react-resizable-panels";
import { AgentPanel } from "@/components/chat/agent-panel";
import { EditorArea } from "@/components/editor/editor-area";
import { SideBar, type SideView } from "@/components/ide/side-bar";
import { TerminalPanel } from "@/components/ide/terminal-panel";

type IdeLayoutProps = {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  user: { id: string; name: string };
  sideView: SideView;
  onSideView: (view: SideView) => void;
};

/** Side bar (explorer, search, Source Control) | (editor over terminal) | agent. Panel sizes are remembered in localStorage. */
export function IdeLayout({ projectId, projectName, canWrite, user, sideView, onSideView }: IdeLayoutProps) {
  const columns = useDefaultLayout({ id: "tandem-ide-columns" });
  const rows = useDefaultLayout({ id: "tandem-ide-rows" });

  return (
    <Group
      id="ide-columns"
      orientation="horizontal"
      className="ide-body"
      defaultLayout={columns.defaultLayout}
      onLayoutChanged={columns.onLayoutChanged}
    >
      <Panel id="panel-explorer" defaultSize="19%" minSize="160px" maxSize="50%" groupResizeBehavior="preserve-pixel-size">
        <SideBar projectId={projectId} projectName={projectName} canWrite={canWrite} view={sideView} onView={onSideView} />
      </Panel>
      <Separator className="ide-separator" data-testid="separator-explorer" />
      <Panel id="panel-main" minSize="30%">
        <Group id="ide-rows" orientation="vertical" defaultLayout={rows.defaultLayout} onLayoutChanged={rows.onLayoutChanged}>
          <Panel id="panel-editor" minSize="15%">
            <EditorArea />
          </Panel>
          <Separator className="ide-separator" data-testid="separator-terminal" />
          <Panel id="panel-terminal" defaultSize="32%" minSize="70px" collapsible collapsedSize="0px">
            <TerminalPanel projectId={projectId} canWrite={canWrite} />
          </Panel>
        </Group>
      </Panel>
      <Separator className="ide-separator" data-testid="separator-agent" />
      <Panel id="panel-agent" defaultSize="33%" minSize="300px" maxSize="60%" collapsible collapsedSize="0px" groupResizeBehavior="preserve-pixel-size">
        <AgentPanel projectId={projectId} projectName={projectName} canWrite={canWrite} me={{ id: user.id, name: user.name }} />
      </Panel>
    </Group>
  );
}
