"use client";

import { ProjectList } from "@/components/ide/project-list";
import { AppShell } from "@/components/ui/app-shell";

export default function ProjectsPage() {
  return <AppShell>{() => <ProjectList />}</AppShell>;
}
